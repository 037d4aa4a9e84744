import { Gauge } from 'prom-client';
import type { Db } from '../db/database.ts';
import { PREFIX, scrapedGauge, sharedReading, type ReadingFailed, type Registry } from '../system/metrics.ts';
import type { ChainHealth } from './health.ts';
import { journalReading } from './journal-store.ts';

/**
 * The relayer's transactions and funds, read at scrape time: the journal (relay_transactions, by its status index and
 * its primary key) and the chain health's last probe (every 2 s; no RPC call of its own unless that one is stale).
 * Amounts are in wei, the chain's base unit (a float: exact to 2^53 wei, some 0.009 ETH, which is plenty for alerts).
 */
export function relayerChainMetrics(
  registry: Registry,
  deps: { db: Db; health: ChainHealth; minBalanceWei: bigint },
  failed: ReadingFailed,
): void {
  const journal = sharedReading(() => journalReading(deps.db));
  const health = sharedReading(() => deps.health.current());
  scrapedGauge(
    registry,
    {
      name: `${PREFIX}relay_transactions_in_flight`,
      help: 'Relay transactions signed and sent, not yet mined or failed.',
    },
    async () => (await journal()).inFlight,
    failed,
  );
  scrapedGauge(
    registry,
    {
      name: `${PREFIX}relayer_last_max_fee_per_gas_wei`,
      help: 'Max fee per gas of the last relay transaction signed (a bump raises it), in wei.',
    },
    async () => {
      const { lastFeeWei } = await journal();
      return lastFeeWei === null ? undefined : Number(lastFeeWei);
    },
    failed,
  );
  scrapedGauge(
    registry,
    { name: `${PREFIX}relayer_balance_wei`, help: "The relayer account's balance at the last chain probe, in wei." },
    async () => {
      const { balanceWei } = await health();
      return balanceWei === undefined ? undefined : Number(balanceWei);
    },
    failed,
  );
  new Gauge({
    name: `${PREFIX}relayer_min_balance_wei`,
    help: 'RELAYER_MIN_BALANCE_ETH in wei: below it on-chain writes answer 503 (alert on the balance well above it).',
    registers: [registry],
  }).set(Number(deps.minBalanceWei));
  scrapedGauge(
    registry,
    { name: `${PREFIX}chain_rpc_up`, help: 'Whether the chain RPC answered the last probe (1), every 2 s.' },
    async () => ((await health()).rpcUp ? 1 : 0),
    failed,
  );
  scrapedGauge(
    registry,
    {
      name: `${PREFIX}chain_available`,
      help: 'Whether on-chain writes can go out (1): the RPC answers and the balance is at least the minimum.',
    },
    async () => ((await health()).ok ? 1 : 0),
    failed,
  );
}

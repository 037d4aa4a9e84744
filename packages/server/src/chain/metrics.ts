import { Gauge } from 'prom-client';
import { formatEther, formatGwei } from 'viem';
import type { Sql } from '../db/sql.ts';
import { scrapedGauge, sharedReading, type ReadingFailed, type Registry } from '../system/metrics.ts';
import type { ChainHealth } from './health.ts';

interface JournalReading {
  inFlight: number;
  lastFeeWei: string | null;
}

/**
 * The relayer's transactions and funds, read at scrape time: the journal (relay_transactions, by its status index and
 * its primary key) and the chain health's last probe (every 2 s; no RPC call of its own unless that one is stale).
 */
export function relayerChainMetrics(
  registry: Registry,
  deps: { sql: Sql; health: ChainHealth; minBalanceWei: bigint },
  failed: ReadingFailed,
): void {
  const journal = sharedReading(async () => {
    const [row] = await deps.sql.query<JournalReading>(
      `SELECT (SELECT count(*) FROM relay_transactions WHERE status = 'sent')::int AS "inFlight",
         (SELECT max_fee_per_gas FROM relay_transactions WHERE max_fee_per_gas IS NOT NULL ORDER BY id DESC LIMIT 1)
           AS "lastFeeWei"`,
    );
    return row!;
  });
  const health = sharedReading(() => deps.health.current());
  scrapedGauge(
    registry,
    { name: 'relayer_transactions_in_flight', help: 'Relay transactions signed and sent, not yet mined or failed.' },
    async () => (await journal()).inFlight,
    failed,
  );
  scrapedGauge(
    registry,
    {
      name: 'relayer_last_max_fee_per_gas_gwei',
      help: 'Max fee per gas of the last relay transaction signed (a bump raises it), in gwei.',
    },
    async () => {
      const { lastFeeWei } = await journal();
      return lastFeeWei === null ? undefined : Number(formatGwei(BigInt(lastFeeWei)));
    },
    failed,
  );
  scrapedGauge(
    registry,
    { name: 'relayer_balance_eth', help: "The relayer account's balance at the last chain probe, in ETH." },
    async () => {
      const { balanceWei } = await health();
      return balanceWei === undefined ? undefined : Number(formatEther(balanceWei));
    },
    failed,
  );
  new Gauge({
    name: 'relayer_min_balance_eth',
    help: 'RELAYER_MIN_BALANCE_ETH: below it on-chain writes answer 503 (alert on the balance well above it).',
    registers: [registry],
  }).set(Number(formatEther(deps.minBalanceWei)));
  scrapedGauge(
    registry,
    { name: 'chain_rpc_up', help: 'Whether the chain RPC answered the last probe (1), every 2 s.' },
    async () => ((await health()).rpcUp ? 1 : 0),
    failed,
  );
  scrapedGauge(
    registry,
    {
      name: 'relayer_chain_available',
      help: 'Whether on-chain writes can go out (1): the RPC answers and the balance is at least the minimum.',
    },
    async () => ((await health()).ok ? 1 : 0),
    failed,
  );
}

// On-chain creates per second against anvil at its default gas limit, with 1 s and with 2 s blocks: the pipelined
// relayer (RELAY_MAX_IN_FLIGHT=4) next to one transaction in flight at a time (RELAY_MAX_IN_FLIGHT=1), each on a
// fresh chain (the base fee our full blocks raise starts over), in the same run.
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import pg from 'pg';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { onchainCreate, onFreshChain, stopChild } from './capacity.ts';
import { serveAll, THIS_TREE } from './children.ts';

/** Enough clients to keep the chain's capacity busy for two block times each (Little's law: 190/s × 1.5 s). */
export const ONCHAIN_CONNECTIONS = 300;
/** Enterprise keys the creates rotate over (6 000 a minute each: one would cap the load at 100/s). */
const KEYS = 10;

export interface OnchainFigure {
  blockSeconds: number;
  maxInFlight: number;
  seconds: number;
  createsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Gas used by the run's transactions per attestation they carried (each transaction's own 21 k and 38 k included). */
  gasPerItem: number;
  itemsPerTransaction: number;
  /** The block's capacity: gas limit ÷ gas per item of the run's fullest transaction ÷ block time. */
  capacityPerSecond: number;
  gasLimit: number;
}

/** What the run's mined transactions carried, from the journal. */
async function minedTotals(databaseUrl: string) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ gas: string; items: number }>(
      `SELECT r.gas_used::text AS gas, count(a.id)::int AS items FROM relay_transactions r
       JOIN attestations a ON a.relay_tx_id = r.id WHERE r.status = 'mined' GROUP BY r.id`,
    );
    const gas = rows.reduce((sum, r) => sum + Number(r.gas), 0);
    const items = rows.reduce((sum, r) => sum + r.items, 0);
    const fullest = rows.reduce((best, r) => (r.items > best.items ? r : best), { gas: '0', items: 0 });
    return { gas, items, transactions: rows.length, fullestPerItem: Number(fullest.gas) / fullest.items };
  } finally {
    await db.end();
  }
}

async function runOne(
  databaseFor: (name: string) => Promise<string>,
  createKeys: (databaseUrl: string, count: number) => Promise<string[]>,
  blockSeconds: number,
  maxInFlight: number,
  seconds: number,
): Promise<OnchainFigure> {
  return onFreshChain(blockSeconds, async (chain) => {
    const databaseUrl = await databaseFor(`onchain_${blockSeconds}s_${maxInFlight}`);
    const keys = await createKeys(databaseUrl, KEYS);
    const relayerKey = `0x${randomBytes(32).toString('hex')}` as const;
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    await client.request({
      method: 'anvil_setBalance' as 'eth_chainId',
      params: [privateKeyToAccount(relayerKey).address, '0x3635c9adc5dea00000'] as never,
    });
    const gasLimit = Number((await client.getBlock()).gasLimit);
    const { child, url } = await serveAll(THIS_TREE, {
      DATABASE_URL: databaseUrl,
      CHAIN_RPC_URL: chain.rpcUrl,
      EAS_ADDRESS: chain.eas,
      SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
      RELAYER_PRIVATE_KEY: relayerKey,
      RELAY_MAX_IN_FLIGHT: String(maxInFlight),
    });
    try {
      let next = 0;
      const result = await autocannon({
        url,
        connections: ONCHAIN_CONNECTIONS,
        duration: seconds,
        timeout: 120,
        requests: [onchainCreate(() => keys[next++ % keys.length]!)],
      });
      const mined = await minedTotals(databaseUrl);
      return {
        blockSeconds,
        maxInFlight,
        seconds,
        createsPerSecond: Math.round(((result.requests.total - result.non2xx) / seconds) * 10) / 10,
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx + result.errors,
        gasPerItem: Math.round(mined.gas / mined.items),
        itemsPerTransaction: Math.round((mined.items / mined.transactions) * 10) / 10,
        capacityPerSecond: Math.round((gasLimit / mined.fullestPerItem / blockSeconds) * 10) / 10,
        gasLimit,
      };
    } finally {
      await stopChild(child);
    }
  });
}

/**
 * The four runs: 1 s and 2 s blocks, each with the pipelined relayer and with one transaction in flight; a run lasts
 * `seconds` at 1 s blocks and twice that at 2 s blocks (the same number of blocks).
 */
export async function measureOnchain(
  databaseFor: (name: string) => Promise<string>,
  createKeys: (databaseUrl: string, count: number) => Promise<string[]>,
  seconds: number,
): Promise<OnchainFigure[]> {
  const figures: OnchainFigure[] = [];
  for (const blockSeconds of [1, 2])
    for (const maxInFlight of [4, 1])
      figures.push(await runOne(databaseFor, createKeys, blockSeconds, maxInFlight, seconds * blockSeconds));
  return figures;
}

/** The BENCHMARKS.md section. */
export function renderOnchain(figures: OnchainFigure[]): string {
  const row = (f: OnchainFigure) => {
    const share = Math.round((f.createsPerSecond / f.capacityPerSecond) * 100);
    const relayer =
      f.maxInFlight === 1 ? 'one in flight (`RELAY_MAX_IN_FLIGHT=1`)' : `pipelined, ${f.maxInFlight} in flight`;
    return `| ${f.blockSeconds} s | ${relayer} | ${f.createsPerSecond} | ${f.capacityPerSecond} | ${share}% | ${f.p50} | ${f.p99} | ${f.gasPerItem.toLocaleString('en')} | ${f.itemsPerTransaction} | ${f.non2xx} |`;
  };
  const gasLimit = figures[0]?.gasLimit.toLocaleString('en') ?? '?';
  return `
## On-chain creates, anvil at its default gas limit (same run)

${ONCHAIN_CONNECTIONS} connections (creates rotating over ${KEYS} enterprise keys, none AI-generated), ${figures[0]?.seconds ?? '?'} s at 1 s
blocks and twice that at 2 s blocks, each run on a fresh anvil (gas limit ${gasLimit}) with the service (\`serve\`:
API, worker and relayer in one process) on this machine. Capacity is the block's: gas limit ÷ gas per item of the
run's fullest \`multiAttest\` ÷ block time. Target: ≥ 80% of it, p50 ≤ two block times.

| blocks | relayer | creates/s | capacity/s | share | p50 ms | p99 ms | gas per item | items per tx | non-2xx + errors |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
${figures.map(row).join('\n')}

- Each transaction carries as many pending creates as fit \`RELAY_GAS_TARGET\` (default half the block's gas limit,
  so two fill a block). Gas per item spreads each transaction's own 38 k (its 21 k base included) over its items;
  an AI-generated item costs 168 k (its flag is a storage word that is not zero), a human one 148 k.
- One in flight sends the next transaction only after the previous one's receipt: at most one transaction (half
  a block) per block, less when the receipt comes too late for the next block. Pipelined, the next transactions
  are in the mempool when a block is built; one short of the target waits while a full one's worth is in flight.
`;
}

/** How many connections each pool of one process may open: the database's (db/database.ts) and graphile-worker's. */
interface PoolSizes {
  pool: number;
  /** graphile-worker's own pool: its LISTEN connection and its batched fetches and completions; 0 without a worker. */
  jobs: number;
}

/** An API's DATABASE_POOL_SIZE: all of it to the database's pool. */
function apiShare(total: number): PoolSizes {
  return { pool: total, jobs: 0 };
}

/**
 * A worker's WORKER_DATABASE_POOL_SIZE: a quarter to graphile-worker (two at least: LISTEN holds one), the rest to
 * the pool its tasks use (16: 4 and 12). Independent of WORKER_CONCURRENCY: a task holds a connection only while it
 * queries, not while it waits on a receiver or the chain.
 */
function workerShare(total: number): PoolSizes {
  const jobs = Math.max(2, Math.ceil(total / 4));
  return { pool: total - jobs, jobs };
}

/**
 * The pools of a process running these parts: each role's budget, summed when one process runs both, so that the
 * connections a deployment needs are the sum of its processes' budgets (docs/operations.md, "Connection budget").
 */
export function poolBudget(
  sizes: { api: number; worker: number },
  parts: { api: boolean; worker: boolean },
): PoolSizes {
  const shares = [...(parts.api ? [apiShare(sizes.api)] : []), ...(parts.worker ? [workerShare(sizes.worker)] : [])];
  return shares.reduce((sum, s) => ({ pool: sum.pool + s.pool, jobs: sum.jobs + s.jobs }), { pool: 0, jobs: 0 });
}

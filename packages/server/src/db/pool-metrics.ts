import { Gauge, Histogram } from 'prom-client';
import type { Pool } from './sql.ts';
import { PREFIX, type Registry } from '../system/metrics.ts';

/** From a free connection's instant hand-out to the acquire timeout (DATABASE_ACQUIRE_TIMEOUT, seconds at most). */
const WAIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Connect = Pool['connect'];
type Done = (error: Error | undefined, client: unknown, release: unknown) => void;

/**
 * The process's pg pool: `db_pool_wait_seconds` (how long each checkout waited for a connection: queries and
 * transactions alike, as pool.query checks out through connect) and the pool's connections, in use and waited for,
 * beside its size. Saturation is `in use / max` near 1 with waits growing.
 */
export function poolMetrics(registry: Registry, pool: Pool): void {
  const wait = new Histogram({
    name: `${PREFIX}db_pool_wait_seconds`,
    help: 'Time a query or transaction waited for a connection from the pool, in seconds.',
    buckets: WAIT_BUCKETS,
    registers: [registry],
  });
  const connect = pool.connect.bind(pool) as (done?: Done) => unknown;
  // pool.query checks out through this.connect(callback): timing it here times every checkout
  pool.connect = function timedConnect(done?: Done) {
    const start = performance.now();
    const observe = () => wait.observe((performance.now() - start) / 1000);
    if (typeof done === 'function')
      return connect((error, client, release) => {
        observe();
        done(error, client, release);
      });
    return (connect() as Promise<unknown>).then(
      (client) => {
        observe();
        return client;
      },
      (error: unknown) => {
        observe();
        throw error;
      },
    );
  } as Connect;
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name: PREFIX + name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge(
    'db_pool_max_connections',
    "The pool's size (DATABASE_POOL_SIZE's share for this process).",
    () => pool.options.max,
  );
  gauge(
    'db_pool_connections_in_use',
    'Connections checked out of the pool now.',
    () => pool.totalCount - pool.idleCount,
  );
  gauge('db_pool_waiting', 'Checkouts waiting for a connection now.', () => pool.waitingCount);
}

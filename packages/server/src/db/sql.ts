import pg from 'pg';
import { tracer, TRACEPARENT } from '../tracing/tracing.ts';

/**
 * The one thing our hand-written queries need: run a parameterised statement, get rows. Implemented by a pg pool,
 * a pg client inside a transaction, and a Prisma transaction, so a query helper (the audit append, say) serves
 * both the Prisma paths and the raw `pg` hot paths.
 */
export interface Sql {
  query<T extends object = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
}

export type Pool = pg.Pool;

/**
 * How long a served request may wait on the database (docs/decisions.md, "Input rules"): for a pooled connection, for
 * one statement.
 */
export interface DatabaseTimeouts {
  acquireMs: number;
  statementMs: number;
}

/**
 * pg options that bound every wait: the server cancels a statement after statementMs (SQLSTATE 57014), and the client
 * gives up a second later when the server does not answer at all (stopped, partitioned), and on a connection that
 * is not handed out within acquireMs. Without timeouts (the CLI, benches) nothing is bounded, as before.
 */
export function boundedPoolOptions(timeouts: DatabaseTimeouts | undefined): pg.PoolConfig {
  if (!timeouts) return {};
  return {
    connectionTimeoutMillis: timeouts.acquireMs,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.statementMs + 1_000,
  };
}

/** A pg pool on the same database as Prisma, for the hot paths (Prisma adds 2–3× per query here; docs/decisions.md). */
export function createPool(databaseUrl: string, max = 10, timeouts?: DatabaseTimeouts): Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max, ...boundedPoolOptions(timeouts) });
  // a client that loses its connection (idle or checked out) must not crash the process: the query in flight
  // fails with its own error, and the pool opens a new connection for the next one
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export function pgSql(client: pg.Pool | pg.PoolClient): Sql {
  return {
    query: async <T extends object>(text: string, values?: unknown[]) => (await client.query<T>(text, values)).rows,
  };
}

/**
 * Runs `fn` in one transaction on a pooled connection: committed when it resolves, rolled back when it throws. Inside
 * a span (tracing on) it is a span too, and the transaction's `app.traceparent` setting names the span it serves: the
 * rows that carry a trace on (an on-chain item, a webhook delivery) take it as their column's default.
 */
export function inTransaction<T>(pool: Pool, fn: (sql: Sql) => Promise<T>): Promise<T> {
  const tracing = tracer();
  // a transaction outside any span (a background loop's) is no trace of its own
  const traceparent = tracing.on ? tracing.traceparent() : undefined;
  if (!traceparent || !TRACEPARENT.test(traceparent)) return transaction(pool, fn, 'BEGIN');
  // a valid traceparent is hex and dashes only: safe inside the statement, and one round trip with BEGIN
  const begin = `BEGIN; SELECT set_config('app.traceparent', '${traceparent}', true)`;
  return tracing.span('db transaction', () => transaction(pool, fn, begin), { kind: 'client' });
}

async function transaction<T>(pool: Pool, fn: (sql: Sql) => Promise<T>, begin: string): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(begin);
    const result = await fn(pgSql(client));
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // a connection whose statement timed out on our side may still have it running: it is not given out again
    if (isDatabaseUnavailable(error)) broken = error as Error;
    else await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release(broken);
  }
}

const UNAVAILABLE_CODES = new Set([
  '57014', // canceling statement due to statement timeout
  '57P01', // admin shutdown
  '57P02', // crash shutdown
  '57P03', // cannot connect now (starting up, shutting down)
  '53300', // too many connections
  '08000',
  '08001',
  '08003',
  '08004',
  '08006', // connection exceptions
  '08P01', // PgBouncer: its server connection crashed, or logging in to a restarting server fails
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024', // Prisma: cannot reach, timed out, connection closed, pool timeout
  'P2028', // Prisma: an interactive transaction not started within maxWait, or past its timeout
]);
const UNAVAILABLE_MESSAGES = [
  /^timeout exceeded when trying to connect$/i,
  /^Connection terminated/i,
  /^Query read timeout$/i,
];

/**
 * Whether this error means the database did not answer (a timeout, a refused or dropped connection) rather than
 * refused a statement: the request then answers 503 SERVICE_UNAVAILABLE (http/error-response.ts). Looks through
 * `cause` (Prisma's adapter and tRPC wrap the driver's error).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let at = error, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth++) {
    const { code, originalCode } = at as { code?: unknown; originalCode?: unknown };
    if (UNAVAILABLE_CODES.has(String(code)) || UNAVAILABLE_CODES.has(String(originalCode))) return true;
    if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(at.message))) return true;
  }
  return false;
}

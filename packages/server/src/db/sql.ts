import pg from 'pg';
import { PreparingClient } from './prepared-statements.ts';

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
function boundedPoolOptions(timeouts: DatabaseTimeouts | undefined): pg.PoolConfig {
  if (!timeouts) return {};
  return {
    connectionTimeoutMillis: timeouts.acquireMs,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.statementMs + 1_000,
  };
}

/**
 * The process's pg pool: the one under its Kysely database (db/database.ts), graphile-worker's own aside. With
 * `preparedStatements`, its connections run the hot reads as prepared statements (db/prepared-statements.ts): only for
 * a URL whose connections keep their session.
 */
export function createPool(
  databaseUrl: string,
  max = 10,
  timeouts?: DatabaseTimeouts,
  opts: { preparedStatements?: boolean } = {},
): Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    ...boundedPoolOptions(timeouts),
    ...(opts.preparedStatements ? { Client: PreparingClient } : {}),
  });
  // a client that loses its connection (idle or checked out) must not crash the process: the query in flight
  // fails with its own error, and the pool opens a new connection for the next one
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
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
]);
const UNAVAILABLE_MESSAGES = [
  /^timeout exceeded when trying to connect$/i,
  /^Connection terminated/i,
  /^Query read timeout$/i,
  // pg's own, for a query on a client whose connection already failed or closed (a terminated backend's FATAL
  // arrives while the client is idle in a transaction; the transaction's next statement and its rollback get these)
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
];

/**
 * Whether this error means the database did not answer (a timeout, a refused or dropped connection) rather than
 * refused a statement: the request then answers 503 SERVICE_UNAVAILABLE (http/error-response.ts). Looks through
 * `cause` (tRPC wraps the driver's error).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let at = error, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth++) {
    if (UNAVAILABLE_CODES.has(String((at as { code?: unknown }).code))) return true;
    if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(at.message))) return true;
  }
  return false;
}

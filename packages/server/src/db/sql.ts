import pg from 'pg';
import type { Tx } from './prisma.ts';

/**
 * The one thing our hand-written queries need: run a parameterised statement, get rows. Implemented by a pg pool,
 * a pg client inside a transaction, and a Prisma transaction, so a query helper (the audit append, say) serves
 * both the Prisma paths and the raw `pg` hot paths.
 */
export interface Sql {
  query<T extends object = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
}

export type Pool = pg.Pool;

/** A pg pool on the same database as Prisma, for the hot paths (Prisma adds 2–3× per query here; docs/decisions.md). */
export function createPool(databaseUrl: string, max = 10): Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max });
  // a client that loses its connection (idle or checked out) must not crash the process: the query in flight
  // fails with its own error, and the pool opens a new connection for the next one
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export function pgSql(client: pg.Pool | pg.PoolClient): Sql {
  return { query: async <T extends object>(text: string, values?: unknown[]) => (await client.query<T>(text, values)).rows };
}

export function prismaSql(tx: Tx): Sql {
  return { query: <T extends object>(text: string, values: unknown[] = []) => tx.$queryRawUnsafe<T[]>(text, ...values) };
}

/** Runs `fn` in one transaction on a pooled connection: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(pool: Pool, fn: (sql: Sql) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(pgSql(client));
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

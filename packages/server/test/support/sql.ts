import type pg from 'pg';

/** A test's raw reads and fixtures: a statement on the test's pool, its rows (the service itself queries through Kysely). */
export interface Sql {
  query<T extends object = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
}

export function pgSql(client: pg.Pool | pg.PoolClient): Sql {
  return {
    query: async <T extends object>(text: string, values?: unknown[]) =>
      (await client.query<T & pg.QueryResultRow>(text, values)).rows,
  };
}

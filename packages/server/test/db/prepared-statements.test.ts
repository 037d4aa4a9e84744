import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findByUids } from '../../src/attestations/record-store.ts';
import { createDatabase, inTransaction } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { prepareStatement } from '../../src/db/prepared-statements.ts';
import { keepsSession } from '../../src/db/session-check.ts';
import { createPool, type Pool } from '../../src/db/sql.ts';
import { createTestDatabase } from '../support/database.ts';

let url: string;
const pools: Pool[] = [];
beforeAll(async () => {
  url = await createTestDatabase();
  await applyMigrations(url);
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
});

/** A pool of one connection, so that its session's prepared statements can be read back. */
function onePool(preparedStatements: boolean): Pool {
  const pool = createPool(url, 1, undefined, { preparedStatements });
  pools.push(pool);
  return pool;
}

const preparedIn = async (pool: Pool) =>
  (
    await pool.query<{ name: string; statement: string }>(
      'SELECT name, statement FROM pg_prepared_statements ORDER BY name',
    )
  ).rows;

describe('prepared statements', () => {
  it('prepares a marked text once per connection and runs it by name after; other texts stay unnamed', async () => {
    const pool = onePool(true);
    const text = `SELECT $1::int + 1 AS n /* marked ${Math.random()} */`;
    prepareStatement(text);
    for (const n of [1, 2, 3]) expect((await pool.query<{ n: number }>(text, [n])).rows).toEqual([{ n: n + 1 }]);
    await pool.query('SELECT 1');
    const prepared = await preparedIn(pool);
    expect(prepared.filter((p) => p.statement === text)).toEqual([
      { name: expect.stringMatching(/^hot_\d+$/), statement: text },
    ]);
    expect(prepared.map((p) => p.statement)).not.toContain('SELECT 1');
  });

  it('leaves every text unnamed on a pool without them', async () => {
    const pool = onePool(false);
    const text = `SELECT $1::int AS n /* marked ${Math.random()} */`;
    prepareStatement(text);
    expect((await pool.query(text, [7])).rows).toEqual([{ n: 7 }]);
    expect(await preparedIn(pool)).toEqual([]);
  });

  it('runs the hot reads by name through the query layer, in a transaction too', async () => {
    const pool = onePool(true);
    const db = createDatabase(pool);
    expect((await findByUids(db, [`0x${'ab'.repeat(32)}`])).size).toBe(0);
    await inTransaction(db, async (tx) => {
      expect((await findByUids(tx, [`0x${'cd'.repeat(32)}`])).size).toBe(0);
      const names = await sql<{ name: string }>`SELECT name FROM pg_prepared_statements`.execute(tx);
      expect(names.rows.map((r) => r.name)).toEqual([expect.stringMatching(/^hot_\d+$/)]);
    });
  });

  it('are used only where connections keep their session, as a direct URL does', async () => {
    expect(await keepsSession(url)).toBe(true);
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findByUids } from '../../src/attestations/record-store.ts';
import { appendAuditEntries } from '../../src/audit/append.ts';
import type { AuditFields } from '../../src/audit/chain.ts';
import { createDatabase, inTransaction } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { prepareStatement } from '../../src/db/prepared-statements.ts';
import { keepsSession } from '../../src/db/session-check.ts';
import { createPool, type Pool } from '../../src/db/sql.ts';
import { createTestDatabase } from '../support/database.ts';
import { auditEntriesOf, insertAccount } from '../support/db.ts';
import { subscribersOf } from '../../src/webhooks/outbox-store.ts';

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

  it("runs a group commit's statements by name, and a rolled-back transaction leaves them usable", async () => {
    const pool = onePool(true);
    const db = createDatabase(pool);
    const accountId = await insertAccount(db, { name: `prepared ${Math.random()}` });
    const entry = (action: string): AuditFields => ({
      accountId,
      at: new Date(),
      action,
      actorKeyPrefix: null,
      resource: 'account',
      outcome: 'success',
      ip: null,
      requestId: null,
      details: { n: 1 },
    });
    // prepared in a transaction that then fails: PostgreSQL keeps what was prepared, and so does the pool
    await expect(
      inTransaction(db, async (tx) => {
        await subscribersOf(tx, [accountId], ['attestation.created']);
        await appendAuditEntries(tx, [entry('first.try')]);
        await sql`SELECT 1 / 0`.execute(tx);
      }),
    ).rejects.toThrow(/division by zero/);
    await inTransaction(db, async (tx) => {
      expect(await subscribersOf(tx, [accountId], ['attestation.created'])).toEqual([]);
      await appendAuditEntries(tx, [entry('second.try'), entry('third.try')]);
    });
    expect((await auditEntriesOf(db, accountId)).map((e) => e.action)).toEqual(['second.try', 'third.try']);
    const named = (await preparedIn(pool)).filter((p) => /audit_chains|webhook_subscriptions/.test(p.statement));
    expect(named).toHaveLength(3); // the subscriptions, the heads, the entries with the heads moved
    for (const p of named) expect(p.name).toMatch(/^hot_\d+$/);
  });

  it('are used only where connections keep their session, as a direct URL does', async () => {
    expect(await keepsSession(url)).toBe(true);
  });
});

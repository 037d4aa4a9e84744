import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, inSnapshot, inTransaction, type Db } from '../../src/db/database.ts';
import { jsonRows, tableRows } from '../../src/db/recordset.ts';
import { createPool, isDatabaseUnavailable, type Pool } from '../../src/db/sql.ts';
import { toErrorResponse } from '../../src/http/error-response.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { createTestDatabase } from '../support/database.ts';

let url: string;
let pool: Pool;
let db: Db;

beforeAll(async () => {
  url = await createTestDatabase();
  await applyMigrations(url);
  pool = createPool(url, 2);
  db = createDatabase(pool);
});
afterAll(async () => {
  await pool?.end();
});

async function account(): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('accounts')
    .values({ id, name: `db ${id}`, nameKey: `db ${id}` })
    .execute();
  return id;
}

describe('the query layer', () => {
  it('names columns in camelCase in code and snake_case in PostgreSQL, and leaves jsonb keys alone', async () => {
    const accountId = await account();
    const row = await db
      .selectFrom('accounts')
      .select(['id', 'nameKey', 'createdAt', 'createdBy'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ id: accountId, nameKey: `db ${accountId}`, createdBy: 'cli' });
    expect(row.createdAt).toBeInstanceOf(Date);
    // raw SQL on purpose: a jsonb literal, to show the plugin leaves its keys as they are
    const [json] = await sql<{ value: unknown }>`SELECT '{"snake_key": 1, "camelKey": 2}'::jsonb AS value`
      .execute(db)
      .then((r) => r.rows);
    expect(json!.value).toEqual({ snake_key: 1, camelKey: 2 });
  });

  it('updates many rows with a value each from one JSON parameter typed by the table (bytea, timestamps)', async () => {
    const accountId = await account();
    const ids = [randomUUID(), randomUUID()];
    await db
      .insertInto('apiKeys')
      .values(
        ids.map((id, i) => ({
          id,
          accountId,
          prefix: `dbtest${id.slice(0, 6)}${i}`.padEnd(12, '0').slice(0, 12),
          secretHash: Buffer.alloc(32, i),
          tier: 'free',
        })),
      )
      .execute();
    const at = [new Date('2026-01-01T00:00:00.123Z'), new Date('2026-02-01T00:00:00Z')];
    await db
      .updateTable('apiKeys as k')
      .from(
        tableRows(
          'apiKeys',
          ids.map((id, i) => ({ id, lastUsedAt: at[i], secretHash: Buffer.alloc(32, 9 + i) })),
          'v',
        ),
      )
      .set((eb) => ({ lastUsedAt: eb.ref('v.lastUsedAt'), secretHash: eb.ref('v.secretHash') }))
      .whereRef('k.id', '=', 'v.id')
      .execute();
    const rows = await db
      .selectFrom('apiKeys')
      .select(['id', 'lastUsedAt', 'secretHash'])
      .where('id', 'in', ids)
      .execute();
    for (const [i, id] of ids.entries()) {
      const row = rows.find((r) => r.id === id)!;
      expect(row.lastUsedAt).toEqual(at[i]);
      expect(Buffer.from(row.secretHash)).toEqual(Buffer.alloc(32, 9 + i));
    }
  });

  it('reads named, typed columns of no table from one JSON parameter', async () => {
    const rows = await db
      .selectFrom(
        jsonRows(
          [{ position: 1, accountId: randomUUID(), sentAt: new Date(0) }],
          { position: 'int', accountId: 'uuid', sentAt: 'timestamptz' },
          'q',
        ),
      )
      .select(['q.position', 'q.accountId', 'q.sentAt'])
      .execute();
    expect(rows[0]!.position).toBe(1);
    expect(rows[0]!.sentAt).toEqual(new Date(0));
  });

  it('commits a transaction whole or not at all', async () => {
    const id = randomUUID();
    await expect(
      inTransaction(db, async (tx) => {
        await tx
          .insertInto('accounts')
          .values({ id, name: `tx ${id}`, nameKey: `tx ${id}` })
          .execute();
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(await db.selectFrom('accounts').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();
  });

  it('reads in one snapshot: what commits between two of its statements is not seen, and it writes nothing', async () => {
    const count = async (on: Db) =>
      Number(
        (
          await on
            .selectFrom('accounts')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const [before, after] = await inSnapshot(db, async (tx) => {
      const first = await count(tx);
      await account(); // on the pool's other connection, committed at once
      return [first, await count(tx)];
    });
    expect(after).toBe(before);
    expect(await count(db)).toBe(before + 1);
    const id = randomUUID();
    const write = (tx: Db) => tx.insertInto('accounts').values({ id, name: id, nameKey: id }).execute();
    await expect(inSnapshot(db, write)).rejects.toThrow(/read-only/);
  });

  it("fails a transaction whose connection dies as the database being unavailable, not with its rollback's error", async () => {
    // the rollback on a dead connection fails too ("not queryable"): that error must not stand in for the outage
    const one = createPool(url, 1);
    try {
      const outcome = inTransaction(createDatabase(one), async (tx) => {
        const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx);
        // waits until the backend is gone: its FATAL notice reaches the client while it is idle in the transaction
        await pool.query('SELECT pg_terminate_backend($1, 5000)', [rows[0]!.pid]);
        await sql`SELECT 1`.execute(tx);
      });
      const error = await outcome.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(toErrorResponse(error)).toMatchObject({ status: 503, body: { code: 'SERVICE_UNAVAILABLE' } });
      // and the pool serves the next transaction on a new connection
      await expect(inTransaction(createDatabase(one), (tx) => sql`SELECT 1`.execute(tx))).resolves.toBeDefined();
    } finally {
      await one.end();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, inTransaction, type Db } from '../../src/db/database.ts';
import { createPool, type Pool } from '../../src/db/sql.ts';
import { lockOpenEntry, recordIntent, recordMined } from '../../src/chain/journal-store.ts';
import { createTestDatabase } from '../support/database.ts';

// Two relayers may finish one entry for a moment (PostgreSQL dropped the first one's signer lock with its
// connection): each finish starts by locking the entry, and only the first finds it open.
let pool: Pool;
let db: Db;

beforeAll(async () => {
  pool = createPool(await createTestDatabase(), 4);
  db = createDatabase(pool);
});
afterAll(async () => {
  await pool?.end();
});

const mined = { hash: `0x${'ab'.repeat(32)}`, blockNumber: 7n, blockHash: `0x${'cd'.repeat(32)}`, gasUsed: 21_000n };

describe('finishing a journal entry', () => {
  it('happens once when two finishes race: the second waits for the first and finds the entry done', async () => {
    const id = await recordIntent(db, 'revoke');
    const finishes: string[] = [];
    const finish = (who: string) =>
      inTransaction(db, async (tx) => {
        if (!(await lockOpenEntry(tx, id))) return;
        await new Promise((resolve) => setTimeout(resolve, 50)); // the other finish arrives meanwhile
        await recordMined(tx, id, mined as never, new Date());
        finishes.push(who);
      });
    await Promise.all([finish('first'), finish('second')]);
    expect(finishes).toHaveLength(1);
    expect(await inTransaction(db, (tx) => lockOpenEntry(tx, id))).toBe(false);
  });

  it('finds an entry that was never finished open, and an unknown one closed', async () => {
    const id = await recordIntent(db, 'attest');
    expect(await inTransaction(db, (tx) => lockOpenEntry(tx, id))).toBe(true);
    expect(await inTransaction(db, (tx) => lockOpenEntry(tx, '999999999'))).toBe(false);
  });
});

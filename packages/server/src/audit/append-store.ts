import { sql as raw } from 'kysely';
import type { Db } from '../db/database.ts';
import { precompiled } from '../db/precompiled.ts';
import { jsonRows, jsonText } from '../db/recordset.ts';
import { GENESIS_HASH, type AuditFields } from './chain.ts';

/** An entry as it is stored: its fields, chained to the one before it. */
export interface ChainedEntry extends AuditFields {
  prevHash: string;
  hash: string;
}

/** Where an account's chain ends after an append, and by how many entries it grew. */
type ChainHead = {
  accountId: string;
  headHash: string;
  added: number;
};

const lockedHeads = precompiled(
  (db: Db, accounts: Array<{ accountId: string }>) =>
    db
      .insertInto('auditChains')
      .columns(['accountId', 'headHash', 'length'])
      .expression((eb) =>
        eb
          .selectFrom(jsonRows(accounts, { accountId: 'uuid' }, 'a'))
          // literals: a precompiled statement takes only its own parameters
          .select(['a.accountId', raw.lit(GENESIS_HASH).as('headHash'), raw.lit(0).as('length')])
          .orderBy('a.accountId'),
      )
      // a no-op update: the conflicting row is locked and returned, as the new one is
      .onConflict((oc) => oc.column('accountId').doUpdateSet((eb) => ({ length: eb.ref('auditChains.length') })))
      .returning(['accountId', 'headHash']),
  [[] as Array<{ accountId: string }>],
  (row: { account_id: string; head_hash: string }) => ({ accountId: row.account_id, headHash: row.head_hash }),
  (accounts) => [jsonText(accounts)],
);

/**
 * The chain heads of these accounts, created at the genesis hash when they have none, each row locked until the
 * transaction ends. Locked in account order (the ORDER BY), so two transactions never lock them in opposite orders.
 */
export function lockHeads(db: Db, accountIds: string[]): Promise<Array<{ accountId: string; headHash: string }>> {
  return lockedHeads(
    db,
    accountIds.map((accountId) => ({ accountId })),
  );
}

/** An entry's stored columns with their PostgreSQL types, as the insert reads them from one JSON parameter. */
const ENTRY_TYPES = {
  accountId: 'uuid',
  at: 'timestamptz',
  action: 'text',
  actorKeyPrefix: 'text',
  resource: 'text',
  outcome: 'text',
  ip: 'text',
  requestId: 'text',
  details: 'jsonb',
  prevHash: 'text',
  hash: 'text',
} as const;
const ENTRY_COLUMNS = Object.keys(ENTRY_TYPES) as Array<keyof typeof ENTRY_TYPES>;

/** An entry as the insert reads it: its columns and its position in the append. */
type EntryRow = Pick<ChainedEntry, keyof ChainedEntry> & { position: number };

const appended = precompiled(
  (db: Db, entries: EntryRow[], heads: Array<{ accountId: string; headHash: string; added: string }>) =>
    db
      .with('entries', (db) =>
        db
          .insertInto('auditEntries')
          .columns(ENTRY_COLUMNS)
          .expression((eb) =>
            eb
              .selectFrom(jsonRows(entries, { ...ENTRY_TYPES, position: 'int' }, 'e'))
              .select(ENTRY_COLUMNS.map((column) => `e.${column}` as const))
              .orderBy('e.position'),
          ),
      )
      .updateTable('auditChains as c')
      // `added` as the int8 `length` it adds to is typed
      .from(jsonRows(heads, { accountId: 'uuid', headHash: 'text', added: 'int8' }, 'v'))
      .set((eb) => ({ headHash: eb.ref('v.headHash'), length: eb('c.length', '+', eb.ref('v.added')) }))
      .whereRef('c.accountId', '=', 'v.accountId'),
  [[], []],
  () => undefined,
  (entries, heads) => [jsonText(entries), jsonText(heads)],
);

/**
 * Inserts the entries in order (their ids follow it) and moves their chains' heads, in one statement; the heads are
 * the ones lockHeads locked in this transaction.
 */
export async function appendToChains(db: Db, entries: ChainedEntry[], heads: ChainHead[]): Promise<void> {
  await appended(
    db,
    entries.map((entry, position) => ({ ...entry, position })),
    heads.map((h) => ({ accountId: h.accountId, headHash: h.headHash, added: String(h.added) })),
  );
}

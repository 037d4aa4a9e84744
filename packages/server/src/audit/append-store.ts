import type { Db } from '../db/database.ts';
import { jsonRows } from '../db/recordset.ts';
import type { AuditFields } from './chain.ts';

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

/**
 * The chain heads of these accounts, created at `genesisHash` when they have none, each row locked until the
 * transaction ends. Locked in account order (the ORDER BY), so two transactions never lock them in opposite orders.
 */
export async function lockHeads(
  db: Db,
  accountIds: string[],
  genesisHash: string,
): Promise<Array<{ accountId: string; headHash: string }>> {
  return (
    db
      .insertInto('auditChains')
      .columns(['accountId', 'headHash', 'length'])
      .expression((eb) =>
        eb
          .selectFrom(
            jsonRows(
              accountIds.map((accountId) => ({ accountId })),
              { accountId: 'uuid' },
              'a',
            ),
          )
          .select((eb) => ['a.accountId', eb.val(genesisHash).as('headHash'), eb.lit(0).as('length')])
          .orderBy('a.accountId'),
      )
      // a no-op update: the conflicting row is locked and returned, as the new one is
      .onConflict((oc) => oc.column('accountId').doUpdateSet((eb) => ({ length: eb.ref('auditChains.length') })))
      .returning(['accountId', 'headHash'])
      .execute()
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

/**
 * Inserts the entries in order (their ids follow it) and moves their chains' heads, in one statement; the heads are
 * the ones lockHeads locked in this transaction.
 */
export async function appendToChains(db: Db, entries: ChainedEntry[], heads: ChainHead[]): Promise<void> {
  await db
    .with('entries', (db) =>
      db
        .insertInto('auditEntries')
        .columns(ENTRY_COLUMNS)
        .expression((eb) =>
          eb
            .selectFrom(
              jsonRows(
                entries.map((entry, position) => ({ ...entry, position })),
                { ...ENTRY_TYPES, position: 'int' },
                'e',
              ),
            )
            .select(ENTRY_COLUMNS.map((column) => `e.${column}` as const))
            .orderBy('e.position'),
        ),
    )
    .updateTable('auditChains as c')
    .from(
      jsonRows(
        heads.map((h) => ({ ...h, added: String(h.added) })), // as the int8 `length` it adds to is typed
        { accountId: 'uuid', headHash: 'text', added: 'int8' },
        'v',
      ),
    )
    .set((eb) => ({ headHash: eb.ref('v.headHash'), length: eb('c.length', '+', eb.ref('v.added')) }))
    .whereRef('c.accountId', '=', 'v.accountId')
    .execute();
}

import type { Db } from '../db/database.ts';

/** A relayed attestation that carries the traceparent of the request that made it. */
interface TracedItem {
  uid: string | null;
  traceparent: string;
  createdAt: Date;
}

/** Those of these attestations that carry a traceparent (made with tracing on). */
export async function tracedItems(db: Db, ids: string[]): Promise<TracedItem[]> {
  return db
    .selectFrom('attestations')
    .select(['uid', 'traceparent', 'createdAt'])
    .where((eb) => eb('id', '=', eb.fn.any(eb.val(ids))))
    .where('traceparent', 'is not', null)
    .$narrowType<{ traceparent: string }>()
    .execute();
}

/** When a journal entry was made and first sent; undefined when there is no such entry. */
export async function journalTimes(
  db: Db,
  journalId: string,
): Promise<{ sentAt: Date | null; createdAt: Date } | undefined> {
  return db
    .selectFrom('relayTransactions')
    .select(['sentAt', 'createdAt'])
    .where('id', '=', journalId)
    .executeTakeFirst();
}

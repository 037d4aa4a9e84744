import type { Db } from '../db/database.ts';
import { isUuid } from './store.ts';

// The leases of `webhooks listen` subscriptions (listen-lease.ts): a live one has `listen_expires_at` in the future.

/** Moves a live listen subscription's lease to `until`; false when it is gone (deleted, or lapsed and swept). */
export async function renewListenLease(db: Db, id: string, until: Date): Promise<boolean> {
  if (!isUuid(id)) return false;
  const renewed = await db
    .updateTable('webhookSubscriptions')
    .set({ listenExpiresAt: until })
    .where('id', '=', id)
    .where('deletedAt', 'is', null)
    .where('listenExpiresAt', 'is not', null)
    .executeTakeFirst();
  return renewed.numUpdatedRows === 1n;
}

/** Live listen subscriptions whose lease ended at or before `now`, at most `max` of them. */
export function lapsedListenSubscriptions(
  db: Db,
  now: Date,
  max: number,
): Promise<Array<{ id: string; accountId: string }>> {
  return db
    .selectFrom('webhookSubscriptions')
    .select(['id', 'accountId'])
    .where('listenExpiresAt', 'is not', null)
    .where('listenExpiresAt', '<=', now)
    .where('deletedAt', 'is', null)
    .limit(max)
    .execute();
}

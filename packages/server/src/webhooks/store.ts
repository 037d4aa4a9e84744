import type { Db } from '../db/database.ts';
import type { DeliveryState } from './contracts.ts';

// Subscriptions. The deliveries' statements are in delivery-store.ts, an attempt's in attempt-store.ts, the
// outbox's jobs in outbox-store.ts, the leases of `webhooks listen` subscriptions in listen-store.ts.

/** Ids are UUIDs; anything else names nothing (and never reaches a cast that would fail). */
export const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

interface SubscriptionRow {
  id: string;
  url: string;
  events: string[];
  createdAt: Date;
}

/** The partial unique index that holds one live subscription per (account, URL): fan-out amplification. */
const ONE_URL_PER_ACCOUNT = 'webhook_subscriptions_account_id_url_key';

/** Whether an insert failed on ONE_URL_PER_ACCOUNT (a concurrent subscribe to the same URL won). */
export function isUrlTaken(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string } | null;
  return e?.code === '23505' && e.constraint === ONE_URL_PER_ACCOUNT;
}

/** Inserts a subscription; `listenExpiresAt` only for a `webhooks listen` one (listen-lease.ts). */
export async function insertSubscription(
  db: Db,
  row: SubscriptionRow & { accountId: string; secret: string; listenExpiresAt?: Date },
): Promise<void> {
  await db.insertInto('webhookSubscriptions').values(row).execute();
}

export async function countLiveSubscriptions(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('webhookSubscriptions')
    .select((eb) => eb.fn.countAll<string>().as('live'))
    .where('accountId', '=', accountId)
    .where('deletedAt', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.live);
}

const sameUrl = (stored: string, href: string) => URL.canParse(stored) && new URL(stored).href === href;

/** An account's live subscriptions, oldest first. */
const liveOf = (db: Db, accountId: string) =>
  db
    .selectFrom('webhookSubscriptions')
    .where('accountId', '=', accountId)
    .where('deletedAt', 'is', null)
    .orderBy('createdAt')
    .orderBy('id');

/**
 * The id of this account's live subscription to this URL (`href` normalized by `new URL`), if any. Compared in
 * code, so rows stored before URLs were normalized are found too; an account has at most a few dozen.
 */
export async function liveSubscriptionTo(db: Db, accountId: string, href: string): Promise<string | undefined> {
  const rows = await liveOf(db, accountId).select(['id', 'url']).execute();
  return rows.find((row) => sameUrl(row.url, href))?.id;
}

/** An account's live subscriptions, oldest first (never their secrets; when a rotation's window ends). */
export function listSubscriptions(
  db: Db,
  accountId: string,
): Promise<Array<SubscriptionRow & { previousSecretExpiresAt: Date | null }>> {
  return liveOf(db, accountId).select(['id', 'url', 'events', 'createdAt', 'previousSecretExpiresAt']).execute();
}

/**
 * Makes `secret` the subscription's signing secret; the one it replaces keeps signing until `previousUntil` (none
 * when null: retired at once). A rotation inside a window retires the older secret then. Undefined when the
 * account has no such live subscription.
 */
export async function rotateSubscriptionSecret(
  db: Db,
  accountId: string,
  id: string,
  secret: string,
  previousUntil: Date | null,
): Promise<{ url: string } | undefined> {
  if (!isUuid(id)) return undefined;
  return (
    db
      .updateTable('webhookSubscriptions')
      // every SET reads the row as it was: the previous secret is the one this statement replaces
      .set((eb) => ({
        previousSecret: previousUntil === null ? null : eb.ref('secret'),
        previousSecretExpiresAt: previousUntil,
        secret,
      }))
      .where('id', '=', id)
      .where('accountId', '=', accountId)
      .where('deletedAt', 'is', null)
      .returning('url')
      .executeTakeFirst()
  );
}

/**
 * Locks this account's live subscription until the transaction ends (false when there is none): a deletion then
 * waits, and drops what the transaction queued for it.
 */
export async function lockLiveSubscription(db: Db, accountId: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const rows = await db
    .selectFrom('webhookSubscriptions')
    .select((eb) => eb.lit(1).as('locked'))
    .where('id', '=', id)
    .where('accountId', '=', accountId)
    .where('deletedAt', 'is', null)
    .forUpdate()
    .execute();
  return rows.length === 1;
}

/** The account of a live subscription (undefined when there is none): the operator's CLI acts in it. */
export async function accountOfSubscription(db: Db, id: string): Promise<string | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await db
    .selectFrom('webhookSubscriptions')
    .select('accountId')
    .where('id', '=', id)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
  return row?.accountId;
}

/** Whether this account has this live subscription (a malformed id is simply not one). */
export async function ownsSubscription(db: Db, accountId: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const row = await db
    .selectFrom('webhookSubscriptions')
    .select('id')
    .where('id', '=', id)
    .where('accountId', '=', accountId)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Deletes a live subscription of this account and drops its pending deliveries (their jobs find them dropped and
 * end without sending), in the caller's transaction. Returns undefined when the account has no such subscription.
 */
export async function deleteSubscription(
  db: Db,
  accountId: string,
  id: string,
  at: Date,
): Promise<{ url: string; dropped: number } | undefined> {
  if (!isUuid(id)) return undefined;
  const gone = await db
    .updateTable('webhookSubscriptions')
    .set({ deletedAt: at })
    .where('id', '=', id)
    .where('accountId', '=', accountId)
    .where('deletedAt', 'is', null)
    .returning('url')
    .executeTakeFirst();
  if (!gone) return undefined;
  const dropped = await db
    .updateTable('webhookDeliveries')
    .set({ state: 'dropped' satisfies DeliveryState, nextAttemptAt: null, completedAt: at })
    .where('subscriptionId', '=', id)
    .where('state', '=', 'pending' satisfies DeliveryState)
    .executeTakeFirst();
  return { url: gone.url, dropped: Number(dropped.numUpdatedRows) };
}

// the deliveries' history lives in delivery-store.ts; support's listing is named here by its importers
export { supportDeliveries } from './delivery-store.ts';

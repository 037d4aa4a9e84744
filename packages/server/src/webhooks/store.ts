import type { Db, Tx } from '../db/prisma.ts';
import type { Prisma } from '../db/rows.ts';
import type { Delivery, DeliveryState } from './contracts.ts';

// Subscriptions and the deliveries' history are cold paths: Prisma (docs/decisions.md, "Persistence: which path is
// which"). The delivery pipeline's hot statements (claims, attempts, the outbox) are raw SQL in attempts.ts/outbox.ts.

/** Ids are UUIDs; anything else names nothing (and never reaches a cast that would fail). */
export const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

export interface SubscriptionRow {
  id: string;
  url: string;
  events: string[];
  createdAt: Date;
}

/** The partial unique index that holds one live subscription per (account, URL): fan-out amplification. */
export const ONE_URL_PER_ACCOUNT = 'webhook_subscriptions_account_id_url_key';

/** The names a unique violation carries: pg's `constraint`, or Prisma's P2002 (its target, or its adapter's cause). */
function violatedIndex(error: unknown): string | undefined {
  const e = error as { code?: string; constraint?: string; meta?: Record<string, unknown> } | null;
  if (e?.code === '23505') return e.constraint;
  if (e?.code !== 'P2002') return undefined;
  const cause = (e.meta?.driverAdapterError as { cause?: { constraint?: { index?: string } } } | undefined)?.cause;
  return cause?.constraint?.index ?? (typeof e.meta?.target === 'string' ? e.meta.target : undefined);
}

/** Whether an insert failed on ONE_URL_PER_ACCOUNT (a concurrent subscribe to the same URL won). */
export const isUrlTaken = (error: unknown): boolean => violatedIndex(error) === ONE_URL_PER_ACCOUNT;

/**
 * Locks the account's row until the transaction ends: concurrent subscribes of one account queue there, so the
 * limit and the one-URL rule hold. Raw SQL: Prisma has no `FOR UPDATE`.
 */
export async function lockAccount(tx: Tx, accountId: string): Promise<void> {
  await tx.$queryRaw`SELECT 1 FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
}

export async function insertSubscription(
  db: Db | Tx,
  row: SubscriptionRow & { accountId: string; secret: string },
): Promise<void> {
  await db.webhookSubscription.create({ data: row, select: { id: true } });
}

/** How many live subscriptions the account has. */
export function countLiveSubscriptions(db: Db | Tx, accountId: string): Promise<number> {
  return db.webhookSubscription.count({ where: { accountId, deletedAt: null } });
}

const sameUrl = (stored: string, href: string) => URL.canParse(stored) && new URL(stored).href === href;

/**
 * The id of this account's live subscription to this URL (`href` normalized by `new URL`), if any. Compared in
 * code, so rows stored before URLs were normalized are found too; an account has at most a few dozen.
 */
export async function liveSubscriptionTo(db: Db | Tx, accountId: string, href: string): Promise<string | undefined> {
  const rows = await db.webhookSubscription.findMany({
    where: { accountId, deletedAt: null },
    select: { id: true, url: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  return rows.find((row) => sameUrl(row.url, href))?.id;
}

/** An account's live subscriptions, oldest first (never their secrets; when a rotation's window ends). */
export function listSubscriptions(
  db: Db | Tx,
  accountId: string,
): Promise<Array<SubscriptionRow & { previousSecretExpiresAt: Date | null }>> {
  return db.webhookSubscription.findMany({
    where: { accountId, deletedAt: null },
    select: { id: true, url: true, events: true, createdAt: true, previousSecretExpiresAt: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/**
 * Makes `secret` the subscription's signing secret; the one it replaces keeps signing until `previousUntil` (none
 * when null: retired at once). A rotation inside a window retires the older secret then. Raw SQL: Prisma cannot
 * set a column from another. Undefined when the account has no such live subscription.
 */
export async function rotateSubscriptionSecret(
  tx: Tx,
  accountId: string,
  id: string,
  secret: string,
  previousUntil: Date | null,
): Promise<{ url: string } | undefined> {
  if (!isUuid(id)) return undefined;
  const keep = previousUntil !== null;
  const [row] = await tx.$queryRaw<Array<{ url: string }>>`
    UPDATE webhook_subscriptions
    SET previous_secret = CASE WHEN ${keep} THEN secret END, previous_secret_expires_at = ${previousUntil},
      secret = ${secret}
    WHERE id = ${id}::uuid AND account_id = ${accountId}::uuid AND deleted_at IS NULL
    RETURNING url`;
  return row;
}

/**
 * Locks this account's live subscription until the transaction ends (false when there is none): a deletion then
 * waits, and drops what the transaction queued for it. Raw SQL: Prisma has no `FOR UPDATE`.
 */
export async function lockLiveSubscription(tx: Tx, accountId: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const rows = await tx.$queryRaw<unknown[]>`
    SELECT 1 FROM webhook_subscriptions
    WHERE id = ${id}::uuid AND account_id = ${accountId}::uuid AND deleted_at IS NULL FOR UPDATE`;
  return rows.length === 1;
}

/** The account of a live subscription (undefined when there is none): the operator's CLI acts in it. */
export async function accountOfSubscription(db: Db | Tx, id: string): Promise<string | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await db.webhookSubscription.findFirst({ where: { id, deletedAt: null }, select: { accountId: true } });
  return row?.accountId;
}

/** Whether this account has this live subscription (a malformed id is simply not one). */
export async function ownsSubscription(db: Db | Tx, accountId: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  return (await db.webhookSubscription.count({ where: { id, accountId, deletedAt: null } })) === 1;
}

/**
 * Deletes a live subscription of this account and drops its pending deliveries (their jobs find them dropped and
 * end without sending), in the caller's transaction. Returns undefined when the account has no such subscription.
 */
export async function deleteSubscription(
  tx: Tx,
  accountId: string,
  id: string,
  at: Date,
): Promise<{ url: string; dropped: number } | undefined> {
  if (!isUuid(id)) return undefined;
  const [gone] = await tx.webhookSubscription.updateManyAndReturn({
    where: { id, accountId, deletedAt: null },
    data: { deletedAt: at },
    select: { url: true },
  });
  if (!gone) return undefined;
  const pending: DeliveryState = 'pending';
  const dropped = await tx.webhookDelivery.updateMany({
    where: { subscriptionId: id, state: pending },
    data: { state: 'dropped' satisfies DeliveryState, nextAttemptAt: null, completedAt: at },
  });
  return { url: gone.url, dropped: dropped.count };
}

/** What a delivery's listing reads: the delivery, its event's kind, its attempts in order. */
const DELIVERY_SELECT = {
  id: true,
  eventId: true,
  state: true,
  attempts: true,
  replays: true,
  nextAttemptAt: true,
  lastStatus: true,
  lastError: true,
  createdAt: true,
  completedAt: true,
  event: { select: { type: true } },
  attemptLog: {
    select: { number: true, status: true, error: true, durationMs: true, responseBody: true, at: true },
    orderBy: { id: 'asc' },
  },
} as const;

type DeliveryRecord = Prisma.WebhookDeliveryGetPayload<{ select: typeof DELIVERY_SELECT }>;

/** A delivery as the API and the CLI show it: times as ISO 8601 (the columns hold only states and kinds we write). */
function toDelivery(row: DeliveryRecord): Delivery {
  return {
    id: row.id,
    eventId: row.eventId,
    event: row.event.type as Delivery['event'],
    state: row.state as DeliveryState,
    attempts: row.attempts,
    replays: row.replays,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
    attemptLog: row.attemptLog.map(({ at, ...attempt }) => ({ ...attempt, at: at.toISOString() })),
  };
}

/** One page of a subscription's deliveries, newest first, keyed by (created_at, id). */
export async function deliveryPage(
  db: Db | Tx,
  subscriptionId: string,
  opts: { state?: DeliveryState | undefined; limit: number; after?: { createdAt: Date; id: string } | undefined },
): Promise<{ rows: Delivery[]; more: boolean }> {
  const { after } = opts;
  // (created_at, id) < (after.createdAt, after.id)
  const before = after && {
    OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }],
  };
  const rows = await db.webhookDelivery.findMany({
    where: { subscriptionId, state: opts.state, ...before },
    select: DELIVERY_SELECT,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: opts.limit + 1,
  });
  return { rows: rows.slice(0, opts.limit).map(toDelivery), more: rows.length > opts.limit };
}

export interface DeliverySummary extends Delivery {
  accountName: string;
  subscriptionId: string;
  url: string;
}

/** Deliveries across accounts for support (the CLI), newest first. */
export async function supportDeliveries(
  db: Db | Tx,
  opts: { state?: DeliveryState | undefined; account?: string | undefined; limit: number },
): Promise<DeliverySummary[]> {
  const account = opts.account === undefined ? {} : { subscription: { account: { name: opts.account } } };
  const rows = await db.webhookDelivery.findMany({
    where: { state: opts.state, ...account },
    select: {
      ...DELIVERY_SELECT,
      subscription: { select: { id: true, url: true, account: { select: { name: true } } } },
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: opts.limit,
  });
  return rows.map(({ subscription, ...row }) => ({
    ...toDelivery(row),
    accountName: subscription.account.name,
    subscriptionId: subscription.id,
    url: subscription.url,
  }));
}

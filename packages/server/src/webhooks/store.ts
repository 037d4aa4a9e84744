import type { Sql } from '../db/sql.ts';
import type { Delivery } from './contracts.ts';

/** Ids are UUIDs; anything else names nothing (and never reaches a cast that would fail). */
export const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

export interface SubscriptionRow {
  id: string;
  url: string;
  events: string[];
  createdAt: Date;
}

export async function insertSubscription(sql: Sql, row: SubscriptionRow & { accountId: string; secret: string }): Promise<void> {
  await sql.query(`INSERT INTO webhook_subscriptions (id, account_id, url, events, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
    row.id,
    row.accountId,
    row.url,
    row.events,
    row.secret,
    row.createdAt,
  ]);
}

/** The partial unique index that holds one live subscription per (account, URL): fan-out amplification. */
export const ONE_URL_PER_ACCOUNT = 'webhook_subscriptions_account_id_url_key';

/** Whether an insert failed on ONE_URL_PER_ACCOUNT (a concurrent subscribe to the same URL won). */
export const isUrlTaken = (error: unknown): boolean =>
  (error as { code?: string } | null)?.code === '23505' && (error as { constraint?: string }).constraint === ONE_URL_PER_ACCOUNT;

const sameUrl = (stored: string, href: string) => URL.canParse(stored) && new URL(stored).href === href;

/**
 * The id of this account's live subscription to this URL (`href` normalized by `new URL`), if any. Compared in
 * code, so rows stored before URLs were normalized are found too; an account has at most a few dozen.
 */
export async function liveSubscriptionTo(sql: Sql, accountId: string, href: string): Promise<string | undefined> {
  const rows = await sql.query<{ id: string; url: string }>(
    `SELECT id, url FROM webhook_subscriptions WHERE account_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
    [accountId],
  );
  return rows.find((row) => sameUrl(row.url, href))?.id;
}

/** An account's live subscriptions, oldest first (never their secrets). */
export function listSubscriptions(sql: Sql, accountId: string): Promise<SubscriptionRow[]> {
  return sql.query(
    `SELECT id, url, events, created_at AS "createdAt" FROM webhook_subscriptions
     WHERE account_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
    [accountId],
  );
}

/** Whether this account has this live subscription (a malformed id is simply not one). */
export async function ownsSubscription(sql: Sql, accountId: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const rows = await sql.query(`SELECT 1 FROM webhook_subscriptions WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`, [id, accountId]);
  return rows.length === 1;
}

/**
 * Deletes a live subscription of this account and drops its pending deliveries (their jobs find them dropped and
 * end without sending). Returns undefined when the account has no such subscription.
 */
export async function deleteSubscription(sql: Sql, accountId: string, id: string, at: Date): Promise<{ url: string; dropped: number } | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await sql.query<{ url: string; dropped: string }>(
    `WITH gone AS (
       UPDATE webhook_subscriptions SET deleted_at = $3 WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL RETURNING id, url
     ), dropped AS (
       UPDATE webhook_deliveries d SET state = 'dropped', next_attempt_at = NULL, completed_at = $3
       FROM gone WHERE d.subscription_id = gone.id AND d.state = 'pending' RETURNING 1
     )
     SELECT url, (SELECT count(*) FROM dropped) AS dropped FROM gone`,
    [id, accountId, at],
  );
  return row ? { url: row.url, dropped: Number(row.dropped) } : undefined;
}

const DELIVERY_COLUMNS = `d.id, d.event_id AS "eventId", e.type AS event, d.state, d.attempts, d.replays, d.next_attempt_at AS "nextAttemptAt",
  d.last_status AS "lastStatus", d.last_error AS "lastError", d.created_at AS "createdAt", d.completed_at AS "completedAt"`;

type DeliveryRow = Omit<Delivery, 'nextAttemptAt' | 'createdAt' | 'completedAt' | 'attemptLog'> & { nextAttemptAt: Date | null; createdAt: Date; completedAt: Date | null };

/** Adds each delivery's attempts (oldest first) and writes times as ISO 8601. */
async function withAttempts(sql: Sql, rows: DeliveryRow[]): Promise<Delivery[]> {
  const attempts = rows.length === 0 ? [] : await sql.query<{ deliveryId: string; number: number; at: Date; status: number | null; error: string | null; durationMs: number; responseBody: string | null }>(
    `SELECT delivery_id AS "deliveryId", number, at, status, error, duration_ms AS "durationMs", response_body AS "responseBody"
     FROM webhook_attempts WHERE delivery_id = ANY($1::uuid[]) ORDER BY delivery_id, id`,
    [rows.map((r) => r.id)],
  );
  return rows.map((row) => ({
    ...row,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
    attemptLog: attempts.filter((a) => a.deliveryId === row.id).map(({ deliveryId: _, at, ...a }) => ({ ...a, at: at.toISOString() })),
  }));
}

/** One page of a subscription's deliveries, newest first, keyed by (created_at, id). */
export async function deliveryPage(sql: Sql, subscriptionId: string, opts: { state?: string; limit: number; after?: { createdAt: Date; id: string } }): Promise<{ rows: Delivery[]; more: boolean }> {
  const rows = await sql.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
     WHERE d.subscription_id = $1 AND ($2::text IS NULL OR d.state = $2)
       AND ($3::timestamptz IS NULL OR (d.created_at, d.id) < ($3, $4::uuid))
     ORDER BY d.created_at DESC, d.id DESC LIMIT $5`,
    [subscriptionId, opts.state ?? null, opts.after?.createdAt ?? null, opts.after?.id ?? null, opts.limit + 1],
  );
  return { rows: await withAttempts(sql, rows.slice(0, opts.limit)), more: rows.length > opts.limit };
}

export interface DeliverySummary extends Delivery {
  accountName: string;
  subscriptionId: string;
  url: string;
}

/** Deliveries across accounts for support (the CLI), newest first. */
export async function supportDeliveries(sql: Sql, opts: { state?: string; account?: string; limit: number }): Promise<DeliverySummary[]> {
  const rows = await sql.query<DeliveryRow & { accountName: string; subscriptionId: string; url: string }>(
    `SELECT ${DELIVERY_COLUMNS}, a.name AS "accountName", s.id AS "subscriptionId", s.url
     FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
       JOIN webhook_subscriptions s ON s.id = d.subscription_id JOIN accounts a ON a.id = s.account_id
     WHERE ($1::text IS NULL OR d.state = $1) AND ($2::text IS NULL OR a.name = $2)
     ORDER BY d.created_at DESC, d.id DESC LIMIT $3`,
    [opts.state ?? null, opts.account ?? null, opts.limit],
  );
  const detailed = await withAttempts(sql, rows);
  return detailed.map((d, i) => ({ ...d, accountName: rows[i]!.accountName, subscriptionId: rows[i]!.subscriptionId, url: rows[i]!.url }));
}

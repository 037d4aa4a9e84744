import type { Sql } from '../db/sql.ts';

/** Which notifications a member chose: the `members` columns. */
export type Preference = 'quota' | 'webhooks';
const COLUMN: Record<Preference, string> = { quota: 'notify_quota', webhooks: 'notify_webhooks' };

export interface OutboxRow {
  id: string;
  recipient: string;
  subject: string;
  text: string;
  html: string;
  kind: string;
}

/** A queued mail not sent yet, or undefined (sent already, or gone). */
export async function unsentMail(sql: Sql, id: string): Promise<OutboxRow | undefined> {
  const [row] = await sql.query<OutboxRow>(
    `SELECT id, recipient, subject, text_body AS text, html_body AS html, kind FROM mail_outbox
     WHERE id = $1::uuid AND sent_at IS NULL`,
    [id],
  );
  return row;
}

/** Marks a mail sent and clears its parts: a reset or invitation link is a credential, kept no longer than needed. */
export async function markSent(sql: Sql, id: string, at: Date): Promise<void> {
  await sql.query(
    `UPDATE mail_outbox SET sent_at = $2, attempts = attempts + 1, last_error = NULL, text_body = '', html_body = ''
     WHERE id = $1::uuid`,
    [id, at],
  );
}

export async function markFailed(sql: Sql, id: string, error: string): Promise<void> {
  await sql.query(`UPDATE mail_outbox SET attempts = attempts + 1, last_error = $2 WHERE id = $1::uuid`, [id, error]);
}

/** The confirmed addresses of an account's members who chose this notification. */
export async function recipientsOf(sql: Sql, accountId: string, preference: Preference): Promise<string[]> {
  const rows = await sql.query<{ email: string }>(
    `SELECT u.email FROM members m JOIN users u ON u.id = m.user_id
     WHERE m.account_id = $1::uuid AND m.${COLUMN[preference]} AND u.email_verified ORDER BY m.created_at`,
    [accountId],
  );
  return rows.map((r) => r.email);
}

export async function accountName(sql: Sql, accountId: string): Promise<string | undefined> {
  const [row] = await sql.query<{ name: string }>(`SELECT name FROM accounts WHERE id = $1::uuid`, [accountId]);
  return row?.name;
}

/** An account's deliveries that went dead after `since`, by subscription: most first. */
export async function deadDeliveriesSince(sql: Sql, accountId: string, since: Date) {
  return sql.query<{ url: string; dead: number; lastError: string | null }>(
    `SELECT s.url, count(*)::int AS dead,
       (array_agg(coalesce(d.last_error, 'HTTP ' || d.last_status::text) ORDER BY d.completed_at DESC))[1]
         AS "lastError"
     FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
     WHERE s.account_id = $1::uuid AND d.state = 'dead' AND d.completed_at > $2
     GROUP BY s.id, s.url ORDER BY dead DESC, s.url`,
    [accountId, since],
  );
}

/** When this notice was last given, or undefined. */
export async function lastNotice(sql: Sql, scope: string, kind: string): Promise<Date | undefined> {
  const [row] = await sql.query<{ at: Date | null }>(
    `SELECT max(created_at) AS at FROM mail_notices WHERE scope = $1 AND kind = $2`,
    [scope, kind],
  );
  return row?.at ?? undefined;
}

/** Records a notice for its period; false when it was given already (another transaction got there first). */
export async function recordNotice(sql: Sql, scope: string, kind: string, period: string, at: Date): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO mail_notices (scope, kind, period, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING RETURNING 1 AS recorded`,
    [scope, kind, period, at],
  );
  return rows.length === 1;
}

export async function preferencesOf(sql: Sql, accountId: string, userId: string) {
  const [row] = await sql.query<{ quota: boolean; webhooks: boolean }>(
    `SELECT notify_quota AS quota, notify_webhooks AS webhooks FROM members
     WHERE account_id = $1::uuid AND user_id = $2`,
    [accountId, userId],
  );
  return row ?? { quota: false, webhooks: false };
}

export async function setPreferences(
  sql: Sql,
  accountId: string,
  userId: string,
  prefs: { quota: boolean; webhooks: boolean },
): Promise<void> {
  await sql.query(
    `UPDATE members SET notify_quota = $3, notify_webhooks = $4 WHERE account_id = $1::uuid AND user_id = $2`,
    [accountId, userId, prefs.quota, prefs.webhooks],
  );
}

export async function emailVerified(sql: Sql, userId: string): Promise<boolean> {
  const [row] = await sql.query<{ verified: boolean }>(`SELECT email_verified AS verified FROM users WHERE id = $1`, [
    userId,
  ]);
  return row?.verified === true;
}

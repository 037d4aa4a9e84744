import { randomUUID } from 'node:crypto';
import type { Sql } from '../db/sql.ts';
import type { Composed } from './compose.ts';
import type { BodySealer } from './seal.ts';

export const MAIL_SEND_TASK = 'mail.send';

/** What a mail is: the outbox's `kind` column, and the metrics' and logs' label. */
export type MailKind = 'reset-password' | 'verify-email' | 'invitation' | 'quota' | 'webhooks-dead' | 'relayer-balance';

/**
 * Mails per hour an account may cause, and one address may receive (docs/decisions.md, "Mail"): past them a mail is
 * not queued, so no account, and no stranger asking for resets, can make the service flood a mailbox.
 */
export const MAIL_RATE = { perAccountPerHour: 60, perRecipientPerHour: 10 };

export interface OutgoingMail {
  kind: MailKind;
  to: string;
  /** The account it is about (its hourly bound), or null (sign-in mails, the operator's). */
  accountId: string | null;
  composed: Composed;
}

const HOUR_MS = 3_600_000;

async function recentCount(sql: Sql, column: 'account_id' | 'recipient', value: string, since: Date) {
  const cast = column === 'account_id' ? '::uuid' : '';
  const [row] = await sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM mail_outbox WHERE ${column} = $1${cast} AND created_at > $2`,
    [value, since],
  );
  return row?.n ?? 0;
}

/**
 * Stores each mail (its parts sealed) and its send job in the caller's transaction (the one that makes the change it tells of): none
 * is sent if it rolls back, each is sent at least once after it commits. A mail past MAIL_RATE is left out. Returns
 * how many were queued.
 */
export async function queueMails(sql: Sql, mails: OutgoingMail[], now: Date, sealer: BodySealer): Promise<number> {
  const since = new Date(now.getTime() - HOUR_MS);
  let queued = 0;
  for (const mail of mails) {
    const to = mail.to.toLowerCase();
    if ((await recentCount(sql, 'recipient', to, since)) >= MAIL_RATE.perRecipientPerHour) continue;
    if (mail.accountId && (await recentCount(sql, 'account_id', mail.accountId, since)) >= MAIL_RATE.perAccountPerHour)
      continue;
    const id = randomUUID();
    const { subject, text, html } = mail.composed;
    await sql.query(
      `INSERT INTO mail_outbox (id, account_id, kind, recipient, subject, text_body, html_body, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, mail.accountId, mail.kind, to, subject, sealer.seal(text), sealer.seal(html), now],
    );
    await sql.query(
      `SELECT 1 AS queued FROM graphile_worker.add_job($1::text, json_build_object('id', $2::text),
         job_key => 'mail:' || $2::text, max_attempts => 10)`,
      [MAIL_SEND_TASK, id],
    );
    queued++;
  }
  return queued;
}

import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.ts';
import type { Composed } from './compose.ts';
import { insertMail, mailsSince, queueSend } from './outbox-store.ts';
import type { BodySealer } from './seal.ts';

/** What a mail is: the outbox's `kind` column, and the metrics' and logs' label. */
export type MailKind =
  'reset-password' | 'verify-email' | 'sign-up-attempt' | 'invitation' | 'quota' | 'webhooks-dead' | 'relayer-balance';

/**
 * Mails per hour an account may cause, and one address may receive (docs/decisions.md, "Mail"): past them a mail is
 * not queued, so no account, and no stranger asking for resets, can make the service flood a mailbox.
 */
const MAIL_RATE = { perAccountPerHour: 60, perRecipientPerHour: 10 };

export interface OutgoingMail {
  kind: MailKind;
  to: string;
  /** The account it is about (its hourly bound), or null (sign-in mails, the operator's). */
  accountId: string | null;
  composed: Composed;
}

const HOUR_MS = 3_600_000;

/**
 * Stores each mail (its parts sealed) and its send job in the caller's transaction (the one that makes the change it tells of): none
 * is sent if it rolls back, each is sent at least once after it commits. A mail past MAIL_RATE is left out. Returns
 * how many were queued.
 */
export async function queueMails(db: Db, mails: OutgoingMail[], now: Date, sealer: BodySealer): Promise<number> {
  const since = new Date(now.getTime() - HOUR_MS);
  let queued = 0;
  for (const mail of mails) {
    const to = mail.to.toLowerCase();
    if ((await mailsSince(db, 'recipient', to, since)) >= MAIL_RATE.perRecipientPerHour) continue;
    if (mail.accountId && (await mailsSince(db, 'accountId', mail.accountId, since)) >= MAIL_RATE.perAccountPerHour)
      continue;
    const id = randomUUID();
    const { subject, text, html } = mail.composed;
    await insertMail(db, {
      id,
      accountId: mail.accountId,
      kind: mail.kind,
      recipient: to,
      subject,
      textBody: sealer.seal(text),
      htmlBody: sealer.seal(html),
      createdAt: now,
    });
    await queueSend(db, id);
    queued++;
  }
  return queued;
}

import type { Db } from '../db/database.ts';
import { queueAccountJobs, queueJob, recordNotice } from './store.ts';

export const QUOTA_NOTICE_TASK = 'mail.quota';
export const DEAD_DIGEST_TASK = 'mail.webhooks-dead';
/** The shares of the monthly on-chain quota that are mailed, once a month each. */
const QUOTA_THRESHOLDS = [80, 100] as const;
/** How long a digest waits for more deliveries to die (a failing endpoint fails many at once). */
const DIGEST_GRACE_SECONDS = 15;

export interface QuotaNotice {
  accountId: string;
  threshold: number;
  used: number;
  limit: number;
  period: string;
}

/**
 * In the transaction that reserved `count` on-chain attestations and brought the account's month to `used` of
 * `limit`: records each threshold it crossed, once per month (the reservations of an account run one at a time), and
 * queues the job that mails it. Costs nothing unless a threshold is crossed.
 */
export async function noteQuotaUse(
  db: Db,
  use: { accountId: string; period: string; used: number; count: number; limit: number },
  now: Date,
): Promise<void> {
  if (!Number.isFinite(use.limit) || use.limit <= 0) return;
  for (const threshold of QUOTA_THRESHOLDS) {
    const mark = Math.ceil((use.limit * threshold) / 100);
    if (use.used - use.count >= mark || use.used < mark) continue;
    if (!(await recordNotice(db, use.accountId, `quota-${threshold}`, use.period, now))) continue;
    const notice: QuotaNotice = { ...use, threshold };
    await queueJob(db, QUOTA_NOTICE_TASK, notice);
  }
}

/**
 * In the transaction that marked deliveries dead: schedules one digest per account a little later. The job key keeps
 * one waiting digest per account, at its first time, however many deliveries die meanwhile.
 */
export async function scheduleDeadDigest(db: Db, accountIds: string[], delaySeconds = DIGEST_GRACE_SECONDS) {
  if (accountIds.length === 0) return;
  await queueAccountJobs(db, DEAD_DIGEST_TASK, 'mail-dead:', [...new Set(accountIds)], delaySeconds);
}

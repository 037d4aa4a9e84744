import type { Task } from 'graphile-worker';
import { notifiedAddresses } from '../accounts/member-store.ts';
import { accountNameOf } from '../accounts/store.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import type { Logger } from '../log.ts';
import { DEAD_DIGEST_TASK, QUOTA_NOTICE_TASK, scheduleDeadDigest, type QuotaNotice } from './notices.ts';
import { queueMails } from './outbox.ts';
import type { BodySealer } from './seal.ts';
import { deadDeliveriesSince, lastNotice, recordNotice } from './store.ts';
import { templates } from './templates.ts';

/** At most one dead-delivery digest per account an hour; the first one looks back a day at most. */
const DIGEST_GAP_MS = 3_600_000;
const DIGEST_LOOKBACK_MS = 24 * 3_600_000;
/** Endpoints one digest names; the rest are counted. */
const DIGEST_ENDPOINTS = 20;

interface NotifyDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  publicBaseUrl: string;
  sealer: BodySealer;
}

/** The first instant of the month after `period` (YYYY-MM), as ISO 8601. */
const monthAfter = (period: string): string => {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month, 1)).toISOString();
};

/** The `mail.quota` job: the quota notice to each member who wants it. */
function quotaTask(deps: NotifyDeps): Task {
  return async (payload) => {
    const notice = payload as QuotaNotice;
    await inTransaction(deps.db, async (tx) => {
      const name = await accountNameOf(tx, notice.accountId);
      if (name === undefined) return;
      const composed = templates.quota({
        accountName: name,
        threshold: notice.threshold,
        used: notice.used,
        limit: notice.limit,
        resetsAt: monthAfter(notice.period),
        url: `${deps.publicBaseUrl}/dashboard/`,
      });
      const to = await notifiedAddresses(tx, notice.accountId, 'quota');
      const mails = to.map((address) => ({
        kind: 'quota' as const,
        to: address,
        accountId: notice.accountId,
        composed,
      }));
      await queueMails(tx, mails, new Date(deps.clock.now()), deps.sealer);
    });
  };
}

/** One digest of what died since the last one; a digest asked for within the hour waits for the hour's end. */
async function digest(tx: Db, deps: NotifyDeps, accountId: string): Promise<void> {
  const now = deps.clock.now();
  const last = await lastNotice(tx, accountId, 'webhooks-dead');
  if (last && now - last.getTime() < DIGEST_GAP_MS) {
    await scheduleDeadDigest(tx, [accountId], (last.getTime() + DIGEST_GAP_MS - now) / 1000);
    return;
  }
  const since = new Date(Math.max(last?.getTime() ?? 0, now - DIGEST_LOOKBACK_MS));
  const dead = await deadDeliveriesSince(tx, accountId, since);
  const name = await accountNameOf(tx, accountId);
  if (dead.length === 0 || name === undefined) return;
  await recordNotice(tx, accountId, 'webhooks-dead', new Date(now).toISOString(), new Date(now));
  const composed = templates.deadDeliveries({
    accountName: name,
    subscriptions: dead.slice(0, DIGEST_ENDPOINTS),
    more: Math.max(dead.length - DIGEST_ENDPOINTS, 0),
    url: `${deps.publicBaseUrl}/dashboard/deliveries`,
  });
  const to = await notifiedAddresses(tx, accountId, 'webhooks');
  await queueMails(
    tx,
    to.map((address) => ({ kind: 'webhooks-dead' as const, to: address, accountId, composed })),
    new Date(now),
    deps.sealer,
  );
}

/** The notification jobs: what each mails is composed when it runs, from the state then. */
export function notifyTasks(deps: NotifyDeps): Record<string, Task> {
  return {
    [QUOTA_NOTICE_TASK]: quotaTask(deps),
    [DEAD_DIGEST_TASK]: async (payload) => {
      const { accountId } = payload as { accountId: string };
      await inTransaction(deps.db, (tx) => digest(tx, deps, accountId));
    },
  };
}

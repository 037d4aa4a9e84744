import { sql } from 'kysely';
import { accountsJoin } from '../accounts/store.ts';
import { inSnapshot, type Db } from '../db/database.ts';
import type { Delivery, DeliveryState } from './contracts.ts';

// The deliveries' statements outside an attempt (attempt-store.ts): their history as listed, a replay, the sweep,
// the queue's depth, a delivery's trace.

/** Deliveries with their event's kind, newest first (a listing's filters and limit are the caller's). */
const deliveries = (db: Db) =>
  db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookEvents as e', 'e.id', 'd.eventId')
    .select([
      'd.id',
      'd.eventId',
      'e.type as event',
      'd.state',
      'd.attempts',
      'd.replays',
      'd.nextAttemptAt',
      'd.lastStatus',
      'd.lastError',
      'd.createdAt',
      'd.completedAt',
    ])
    .orderBy('d.createdAt', 'desc')
    .orderBy('d.id', 'desc');

type DeliveryRecord = Awaited<ReturnType<ReturnType<typeof deliveries>['execute']>>[number];

/** The attempts of these deliveries, in order, by delivery (one statement for all of them). */
async function attemptLogs(db: Db, rows: DeliveryRecord[]): Promise<Map<string, Delivery['attemptLog']>> {
  const logs = new Map(rows.map((row) => [row.id, [] as Delivery['attemptLog']]));
  if (rows.length === 0) return logs;
  const attempts = await db
    .selectFrom('webhookAttempts')
    .select(['deliveryId', 'number', 'status', 'error', 'durationMs', 'responseBody', 'at'])
    .where('deliveryId', 'in', [...logs.keys()])
    .orderBy('id')
    .execute();
  for (const { deliveryId, at, ...attempt } of attempts)
    logs.get(deliveryId)!.push({ ...attempt, at: at.toISOString() });
  return logs;
}

/** A delivery as the API and the CLI show it: times as ISO 8601 (the columns hold only states and kinds we write). */
function toDelivery(row: DeliveryRecord, attemptLog: Delivery['attemptLog']): Delivery {
  return {
    id: row.id,
    eventId: row.eventId,
    event: row.event as Delivery['event'],
    state: row.state as DeliveryState,
    attempts: row.attempts,
    replays: row.replays,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
    attemptLog,
  };
}

/**
 * A page of a subscription's deliveries, newest first, keyed by (created_at, id): `limit + 1` of them at most, for
 * the caller's pageOf.
 */
export async function deliveryPage(
  db: Db,
  subscriptionId: string,
  opts: { state?: DeliveryState | undefined; limit: number; after?: { createdAt: Date; id: string } | undefined },
): Promise<Delivery[]> {
  const { after, state } = opts;
  // the deliveries and their attempts as of one moment: an attempt and its delivery's state are written together
  return inSnapshot(db, async (tx) => {
    let query = deliveries(tx).where('d.subscriptionId', '=', subscriptionId);
    if (state !== undefined) query = query.where('d.state', '=', state);
    if (after)
      query = query.where((eb) => eb(eb.refTuple('d.createdAt', 'd.id'), '<', eb.tuple(after.createdAt, after.id)));
    const rows = await query.limit(opts.limit + 1).execute();
    const logs = await attemptLogs(tx, rows);
    return rows.map((row) => toDelivery(row, logs.get(row.id)!));
  });
}

export interface DeliverySummary extends Delivery {
  accountName: string;
  subscriptionId: string;
  url: string;
}

/** Deliveries across accounts for support (the CLI), newest first. */
export async function supportDeliveries(
  db: Db,
  opts: { state?: DeliveryState | undefined; account?: string | undefined; limit: number },
): Promise<DeliverySummary[]> {
  return inSnapshot(db, async (tx) => {
    let query = deliveries(tx)
      .innerJoin('webhookSubscriptions as s', 's.id', 'd.subscriptionId')
      .innerJoin(accountsJoin(tx, 'a'), 'a.id', 's.accountId')
      .select(['a.name as accountName', 's.id as subscriptionId', 's.url']);
    if (opts.state !== undefined) query = query.where('d.state', '=', opts.state);
    if (opts.account !== undefined) query = query.where('a.name', '=', opts.account);
    const rows = await query.limit(opts.limit).execute();
    const logs = await attemptLogs(tx, rows);
    return rows.map((row) => ({
      ...toDelivery(row, logs.get(row.id)!),
      accountName: row.accountName,
      subscriptionId: row.subscriptionId,
      url: row.url,
    }));
  });
}

/**
 * Puts a dead delivery of a live subscription (of `accountId`, when given) back to pending for a new round of
 * attempts. The update names the state it leaves, so two replays of one delivery make one round. Whether it did.
 */
export async function reviveDeadDelivery(db: Db, id: string, at: Date, accountId?: string): Promise<boolean> {
  const revived = await db
    .updateTable('webhookDeliveries')
    .set((eb) => ({
      state: 'pending' satisfies DeliveryState,
      attempts: 0,
      replays: eb('replays', '+', 1),
      nextAttemptAt: at,
      leaseUntil: null,
      completedAt: null,
    }))
    .where('id', '=', id)
    .where('state', '=', 'dead' satisfies DeliveryState)
    .where('subscriptionId', 'in', (eb) => {
      const live = eb.selectFrom('webhookSubscriptions').select('id').where('deletedAt', 'is', null);
      return accountId === undefined ? live : live.where('accountId', '=', accountId);
    })
    .executeTakeFirst();
  return revived.numUpdatedRows > 0n;
}

/** A delivery's state, and its subscription's account and whether it was deleted; undefined when there is none. */
export function deliveryOwner(
  db: Db,
  id: string,
): Promise<{ state: string; subscriptionId: string; accountId: string; deletedAt: Date | null } | undefined> {
  return db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookSubscriptions as s', 's.id', 'd.subscriptionId')
    .select(['d.state', 'd.subscriptionId', 's.accountId', 's.deletedAt'])
    .where('d.id', '=', id)
    .executeTakeFirst();
}

/** Pending deliveries due at `dueBy` or before and not leased at `now`, the longest due first. */
export async function overdueDeliveries(db: Db, dueBy: Date, now: Date, max: number): Promise<string[]> {
  const rows = await db
    .selectFrom('webhookDeliveries')
    .select('id')
    .where('state', '=', 'pending' satisfies DeliveryState)
    .where('nextAttemptAt', '<=', dueBy)
    .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<=', now)]))
    .orderBy('nextAttemptAt')
    .limit(max)
    .execute();
  return rows.map((row) => row.id);
}

/** How many deliveries wait for an attempt (due now or at their next retry). */
export async function pendingDeliveryCount(db: Db): Promise<number> {
  const row = await db
    .selectFrom('webhookDeliveries')
    .select((eb) => eb.fn.countAll<string>().as('pending'))
    .where('state', '=', 'pending' satisfies DeliveryState)
    .executeTakeFirst();
  return Number(row?.pending ?? 0);
}

/**
 * The trace a delivery's attempt joins: the request that made its attestation, when the event is about one (its
 * body's `data.uid`); else the work that queued it (the delivery row's traceparent).
 */
export async function traceparentOfDelivery(db: Db, deliveryId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookEvents as e', 'e.id', 'd.eventId')
    .select((eb) =>
      eb.fn
        .coalesce(
          eb
            .selectFrom('attestations as a')
            .select('a.traceparent')
            .where('a.uid', '=', sql<string>`lower(${eb.ref('e.body')}::jsonb -> 'data' ->> 'uid')`),
          'd.traceparent',
        )
        .as('traceparent'),
    )
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
  return row?.traceparent ?? undefined;
}

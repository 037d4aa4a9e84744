import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { DeliveryState } from './contracts.ts';

// The deliveries' statements outside an attempt (attempt-store.ts): a replay, the sweep, the queue's depth, a
// delivery's trace.

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

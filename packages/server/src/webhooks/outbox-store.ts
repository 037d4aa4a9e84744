import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { precompiled } from '../db/precompiled.ts';
import { jsonRows } from '../db/recordset.ts';
import type { DeliveryState, EventType } from './contracts.ts';

export const DELIVER_TASK = 'webhook.deliver';

/** What the outbox stores for a batch of events: each event with the body it sends, and its deliveries. */
export interface OutboxRows {
  events: Array<{ id: string; accountId: string; type: string; body: string }>;
  deliveries: Array<{ id: string; eventId: string; subscriptionId: string }>;
}

/** A live subscription as the fan-out reads it: the kinds it wants. */
export interface Subscriber {
  id: string;
  accountId: string;
  events: string[];
}

const subscriptionsOf = precompiled(
  (db: Db, accountIds: string[], types: string[]) =>
    db
      .selectFrom('webhookSubscriptions')
      .select(['id', 'accountId', 'events'])
      .where((eb) => eb('accountId', '=', eb.fn.any(eb.val(accountIds))))
      .where('deletedAt', 'is', null)
      .where((eb) => eb('events', '&&', eb.val(types))),
  [[], []],
  (row: { id: string; account_id: string; events: string[] }): Subscriber => ({
    id: row.id,
    accountId: row.account_id,
    events: row.events,
  }),
);

export async function subscribersOf(db: Db, accountIds: string[], types: EventType[]): Promise<Subscriber[]> {
  if (accountIds.length === 0) return [];
  return subscriptionsOf(db, [...new Set(accountIds)], [...new Set<string>(types)]);
}

/**
 * Queues one graphile-worker job per delivery, in the caller's transaction. The job key is the delivery's, so
 * adding it again (a retry, a replay, the sweep) moves the one waiting job instead of adding a second; if that job
 * is running (or its worker died holding it), graphile-worker adds a new one and the delivery's lease decides.
 * `delaySeconds` (one for all, or one per delivery) is measured on the database's clock, where jobs run.
 */
export async function enqueueDeliveries(
  db: Db,
  deliveryIds: string[],
  delaySeconds: number | number[] = 0,
): Promise<void> {
  if (deliveryIds.length === 0) return;
  const delays = Array.isArray(delaySeconds) ? delaySeconds : deliveryIds.map(() => delaySeconds);
  const jobs = jsonRows(
    deliveryIds.map((deliveryId, i) => ({ deliveryId, delaySeconds: delays[i]! })),
    { deliveryId: 'text', delaySeconds: 'float8' },
    'j',
  );
  // one add_jobs call for the batch: its job spec is a composite the query builder cannot spell
  await sql`SELECT count(*) FROM graphile_worker.add_jobs(ARRAY(
      SELECT ROW(${DELIVER_TASK}::text, json_build_object('deliveryId', j.delivery_id), NULL,
        now() + make_interval(secs => j.delay_seconds), 10, 'webhook:' || j.delivery_id, NULL, NULL
      )::graphile_worker.job_spec
      FROM ${jobs}))`.execute(db);
}

/** Stores the events and their pending deliveries at `now`, and queues the deliveries' jobs. */
export async function insertOutboxRows(db: Db, rows: OutboxRows, now: Date): Promise<void> {
  if (rows.deliveries.length === 0) return;
  await db
    .insertInto('webhookEvents')
    .values(rows.events.map((event) => ({ ...event, createdAt: now })))
    .execute();
  await db
    .insertInto('webhookDeliveries')
    .values(
      rows.deliveries.map((delivery) => ({
        ...delivery,
        state: 'pending' satisfies DeliveryState,
        nextAttemptAt: now,
        createdAt: now,
      })),
    )
    .execute();
  await enqueueDeliveries(
    db,
    rows.deliveries.map((d) => d.id),
  );
}

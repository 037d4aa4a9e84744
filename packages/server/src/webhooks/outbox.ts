import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.ts';
import type { Sql } from '../db/sql.ts';
import { TEST_EVENT, type EventType } from './contracts.ts';
import { DELIVER_TASK, insertOutboxRows, type OutboxRows } from './outbox-store.ts';

// emitEvents, emitToSubscribers and subscribersOf serve other folders' transactions, which still hand over an `Sql`:
// they keep their statements here until those move too. emitTestEvent and the jobs (outbox-store.ts) are Kysely's.

export interface OutboxEvent {
  accountId: string;
  type: EventType;
  data: unknown;
}

/** A live subscription as the fan-out reads it: the kinds it wants. */
export interface Subscriber {
  id: string;
  accountId: string;
  events: string[];
}

/** The live subscriptions of these accounts to any of these kinds. */
export async function subscribersOf(sql: Sql, accountIds: string[], types: EventType[]): Promise<Subscriber[]> {
  if (accountIds.length === 0) return [];
  return sql.query(
    `SELECT id, account_id AS "accountId", events FROM webhook_subscriptions
     WHERE account_id = ANY($1::uuid[]) AND deleted_at IS NULL AND events && $2::text[]`,
    [[...new Set(accountIds)], [...new Set(types)]],
  );
}

/**
 * The transactional outbox: in the caller's transaction (the one that makes the change), stores each event with
 * the body every delivery of it will send, one pending delivery per matching subscription, and its job. A crash
 * before commit leaves none of them; after commit, the worker delivers at least once. Returns the deliveries made.
 */
export async function emitEvents(sql: Sql, events: OutboxEvent[], now: Date): Promise<number> {
  return emitToSubscribers(
    sql,
    events,
    await subscribersOf(
      sql,
      events.map((e) => e.accountId),
      events.map((e) => e.type),
    ),
    now,
  );
}

/**
 * Stores the events that these subscriptions (read by subscribersOf in the same transaction) want, with their
 * deliveries and jobs: for a feature that reads what an event carries only when someone subscribes to it.
 */
export async function emitToSubscribers(
  sql: Sql,
  events: OutboxEvent[],
  subscriptions: Subscriber[],
  now: Date,
): Promise<number> {
  return (await storeEvents(sql, events, subscriptions, now)).length;
}

/**
 * The `webhook.test` event to one live subscription (whatever kinds it subscribes to), through the same outbox,
 * delivery and signing as every event. Returns its event and delivery ids.
 */
export async function emitTestEvent(
  db: Db,
  subscription: { id: string; accountId: string },
  now: Date,
): Promise<{ eventId: string; deliveryId: string }> {
  const data = {
    subscriptionId: subscription.id,
    message: 'A test event, sent on request: this endpoint receives and can verify deliveries.',
  };
  const rows = outboxRows(
    [{ accountId: subscription.accountId, type: TEST_EVENT, data }],
    [{ ...subscription, events: [TEST_EVENT] }],
    now,
  );
  await insertOutboxRows(db, rows, now);
  const [delivery] = rows.deliveries;
  return { eventId: delivery!.eventId, deliveryId: delivery!.id };
}

/** Each event some subscription wants, with the body every delivery of it will send, and one delivery per receiver. */
function outboxRows(events: OutboxEvent[], subscriptions: Subscriber[], now: Date): OutboxRows {
  const rows: OutboxRows = { events: [], deliveries: [] };
  for (const event of events) {
    const receivers = subscriptions.filter((s) => s.accountId === event.accountId && s.events.includes(event.type));
    if (receivers.length === 0) continue;
    const id = randomUUID();
    rows.events.push({
      id,
      accountId: event.accountId,
      type: event.type,
      body: JSON.stringify({ id, type: event.type, createdAt: now.toISOString(), data: event.data }),
    });
    for (const subscription of receivers)
      rows.deliveries.push({ id: randomUUID(), eventId: id, subscriptionId: subscription.id });
  }
  return rows;
}

async function storeEvents(
  sql: Sql,
  events: OutboxEvent[],
  subscriptions: Subscriber[],
  now: Date,
): Promise<Array<{ id: string; eventId: string; subscriptionId: string }>> {
  if (subscriptions.length === 0) return [];
  const { events: stored, deliveries } = outboxRows(events, subscriptions, now);
  if (deliveries.length === 0) return [];
  await sql.query(
    `INSERT INTO webhook_events (id, account_id, type, body, created_at)
     SELECT id, account_id, type, body, $5 FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) AS e(id, account_id, type, body)`,
    [
      stored.map((e) => e.id),
      stored.map((e) => e.accountId),
      stored.map((e) => e.type),
      stored.map((e) => e.body),
      now,
    ],
  );
  await sql.query(
    `INSERT INTO webhook_deliveries (id, event_id, subscription_id, state, next_attempt_at, created_at)
     SELECT id, event_id, subscription_id, 'pending', $4, $4 FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) AS d(id, event_id, subscription_id)`,
    [deliveries.map((d) => d.id), deliveries.map((d) => d.eventId), deliveries.map((d) => d.subscriptionId), now],
  );
  // the jobs as outbox-store.ts's enqueueDeliveries queues them (due now)
  await sql.query(
    `SELECT count(*) FROM graphile_worker.add_jobs(ARRAY(
       SELECT ROW($1, json_build_object('deliveryId', d), NULL, now() + make_interval(secs => s), 10, 'webhook:' || d, NULL, NULL)::graphile_worker.job_spec
       FROM unnest($2::text[], $3::float8[]) AS j(d, s)))`,
    [DELIVER_TASK, deliveries.map((d) => d.id), deliveries.map(() => 0)],
  );
  return deliveries;
}

import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { TEST_EVENT, type EventType } from './contracts.ts';
import { insertOutboxRows, subscribersOf, type OutboxRows, type Subscriber } from './outbox-store.ts';

// other features read the subscriptions here too, before they read what an event would carry
export { subscribersOf };

export interface OutboxEvent {
  accountId: string;
  type: EventType;
  data: unknown;
}

/**
 * The transactional outbox: in the caller's transaction (the one that makes the change), stores each event with
 * the body every delivery of it will send, one pending delivery per matching subscription, and its job. A crash
 * before commit leaves none of them; after commit, the worker delivers at least once. Returns the deliveries made.
 */
export async function emitEvents(db: Db, events: OutboxEvent[], now: Date): Promise<number> {
  return emitToSubscribers(
    db,
    events,
    await subscribersOf(
      db,
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
  db: Db,
  events: OutboxEvent[],
  subscriptions: Subscriber[],
  now: Date,
): Promise<number> {
  if (subscriptions.length === 0) return 0;
  const rows = outboxRows(events, subscriptions, now);
  await insertOutboxRows(db, rows, now);
  return rows.deliveries.length;
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

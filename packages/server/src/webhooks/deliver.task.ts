import type { Task } from 'graphile-worker';
import { appendAudit } from '../audit/log.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, pgSql, type Pool, type Sql } from '../db/sql.ts';
import type { Logger } from '../log.ts';
import { enqueueDeliveries } from './outbox.ts';
import { DELIVERY_TIMEOUT_MS, postWebhook, type AttemptResult } from './post.ts';
import type { UrlPolicy } from './url-guard.ts';

/** Attempts per round: the fifth failure makes a delivery dead. */
export const MAX_ATTEMPTS = 5;

export interface DeliveryDeps {
  pool: Pool;
  clock: Clock;
  log: Logger;
  policy: UrlPolicy;
  /** The four waits after attempts 1–4 (WEBHOOK_RETRY_DELAYS). */
  retryDelaysMs: number[];
  timeoutMs?: number;
}

interface Claimed {
  id: string;
  accountId: string;
  subscriptionId: string;
  eventId: string;
  attempts: number;
  url: string;
  secret: string;
  type: string;
  body: string;
}

/**
 * Takes the lease on a due, pending delivery of a live subscription, in one statement: concurrent jobs for one
 * delivery (a retry racing the sweep, say) cannot both send it. When it is pending but not yet due on our clock,
 * says when it is.
 */
async function claim(sql: Sql, deliveryId: string, now: Date, leaseUntil: Date): Promise<{ claimed?: Claimed; dueAt?: Date }> {
  const [row] = await sql.query<Partial<Claimed> & { state: string; nextAttemptAt: Date | null; leased: boolean; won: boolean }>(
    `WITH current AS (
       SELECT state, next_attempt_at, lease_until > $2 AS leased FROM webhook_deliveries WHERE id::text = $1
     ), won AS (
       UPDATE webhook_deliveries d SET lease_until = $3
       FROM webhook_subscriptions s, webhook_events e
       WHERE d.id::text = $1 AND s.id = d.subscription_id AND e.id = d.event_id AND s.deleted_at IS NULL
         AND d.state = 'pending' AND d.next_attempt_at <= $2 AND (d.lease_until IS NULL OR d.lease_until <= $2)
       RETURNING d.id, s.account_id, d.subscription_id, d.event_id, d.attempts, s.url, s.secret, e.type, e.body
     )
     SELECT c.state, c.next_attempt_at AS "nextAttemptAt", coalesce(c.leased, false) AS leased, w.id IS NOT NULL AS won,
       w.id, w.account_id AS "accountId", w.subscription_id AS "subscriptionId", w.event_id AS "eventId", w.attempts, w.url, w.secret, w.type, w.body
     FROM current c LEFT JOIN won w ON true`,
    [deliveryId, now, leaseUntil],
  );
  if (!row) return {};
  if (row.won) return { claimed: row as Claimed };
  if (row.state === 'pending' && !row.leased && row.nextAttemptAt && row.nextAttemptAt > now) return { dueAt: row.nextAttemptAt };
  return {};
}

/** What an attempt's outcome makes of its delivery. */
export function nextState(attemptsMade: number, ok: boolean, at: number, retryDelaysMs: number[]): { state: 'completed' | 'dead' | 'pending'; nextAttemptAt: number | null } {
  if (ok) return { state: 'completed', nextAttemptAt: null };
  if (attemptsMade >= MAX_ATTEMPTS) return { state: 'dead', nextAttemptAt: null };
  return { state: 'pending', nextAttemptAt: at + retryDelaysMs[attemptsMade - 1]! };
}

/** Records an attempt and its consequence in one transaction: the attempt row, the new state, the next job, the audit. */
async function record(deps: DeliveryDeps, delivery: Claimed, at: number, result: AttemptResult): Promise<void> {
  const made = delivery.attempts + 1;
  const next = nextState(made, result.ok, at, deps.retryDelaysMs);
  const now = new Date(at);
  await inTransaction(deps.pool, async (tx) => {
    const [updated] = await tx.query<{ state: string }>(
      `WITH attempt AS (
         INSERT INTO webhook_attempts (delivery_id, number, at, status, error, duration_ms, response_body) VALUES ($1, $2, $3, $4, $5, $6, $7)
       )
       UPDATE webhook_deliveries SET attempts = $2, lease_until = NULL, last_status = $4, last_error = $5,
         state = CASE WHEN state = 'pending' THEN $8 ELSE state END,
         next_attempt_at = CASE WHEN state = 'pending' THEN $9::timestamptz END,
         completed_at = CASE WHEN state = 'pending' AND $8 <> 'pending' THEN $3::timestamptz ELSE completed_at END
       WHERE id = $1 RETURNING state`,
      [delivery.id, made, now, result.status, result.error, result.durationMs, result.responseBody, next.state, next.nextAttemptAt === null ? null : new Date(next.nextAttemptAt)],
    );
    if (updated?.state === 'pending' && next.nextAttemptAt !== null) await enqueueDeliveries(tx, [delivery.id], (next.nextAttemptAt - at) / 1000);
    if (updated?.state === 'dead') {
      await appendAudit(tx, {
        accountId: delivery.accountId,
        at: now,
        action: 'webhook_delivery.dead',
        actorKeyPrefix: null,
        resource: `webhook_delivery:${delivery.id}`,
        outcome: 'failure',
        ip: null,
        requestId: null,
        details: { subscriptionId: delivery.subscriptionId, eventId: delivery.eventId, event: delivery.type, attempts: made, lastStatus: result.status, lastError: result.error },
      });
    }
  });
}

/**
 * The delivery job: one attempt, then the delivery's next step (done, dead, or the next job at the next wait on
 * our clock). A job that finds its delivery not yet due moves itself to the due time; one that finds it completed,
 * dead, dropped or leased ends.
 */
export function deliverTask(deps: DeliveryDeps): Task {
  const sql = pgSql(deps.pool);
  const timeoutMs = deps.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  return async (payload) => {
    const deliveryId = String((payload as { deliveryId?: unknown }).deliveryId ?? '');
    const at = deps.clock.now();
    const { claimed, dueAt } = await claim(sql, deliveryId, new Date(at), new Date(at + timeoutMs + 5_000));
    if (dueAt) return enqueueDeliveries(sql, [deliveryId], (dueAt.getTime() - at) / 1000);
    if (!claimed) return;
    const result = await postWebhook({ url: claimed.url, secret: claimed.secret, deliveryId: claimed.id, eventType: claimed.type, body: claimed.body }, deps.policy, timeoutMs);
    await record(deps, claimed, at, result);
    if (!result.ok) deps.log.info({ deliveryId, attempt: claimed.attempts + 1, status: result.status, error: result.error }, 'webhook attempt failed');
  };
}

/**
 * Finds pending deliveries overdue by more than `graceMs` and not leased, and queues their jobs again: a worker
 * killed mid-attempt leaves its job locked for hours in graphile-worker, and this puts a fresh one next to it.
 * Runs at worker start and every few seconds; tests call it after moving their clock.
 */
export async function sweepDeliveries(sql: Sql, clock: Clock, graceMs: number, max = 1_000): Promise<number> {
  const now = clock.now();
  const rows = await sql.query<{ id: string }>(
    `SELECT id FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $2) ORDER BY next_attempt_at LIMIT $3`,
    [new Date(now - graceMs), new Date(now), max],
  );
  await enqueueDeliveries(sql, rows.map((r) => r.id));
  return rows.length;
}

import { auditEntry } from '../audit/entry.ts';
import { appendAuditEntries } from '../audit/append.ts';
import { batched } from '../db/group-commit.ts';
import type { Prisma } from '../db/rows.ts';
import { inTransaction, type Pool, type Sql } from '../db/sql.ts';
import type { Logger } from '../log.ts';
import { scheduleDeadDigest } from '../mail/notices.ts';
import type { DeliveryState } from './contracts.ts';
import { enqueueDeliveries } from './outbox.ts';
import type { AttemptResult } from './post.ts';

/** Attempts per round: the fifth failure makes a delivery dead. */
export const MAX_ATTEMPTS = 5;

// Raw SQL: claims and attempts are the delivery pipeline's hot path (docs/decisions.md, "Persistence"); the row
// types come from Prisma's models.

/** A delivery whose lease this worker holds: what its attempt needs (its subscription's and event's columns too). */
export type Claimed = Pick<Prisma.WebhookDeliveryModel, 'id' | 'subscriptionId' | 'eventId' | 'attempts'> &
  Pick<Prisma.WebhookSubscriptionModel, 'accountId' | 'url' | 'secret' | 'previousSecret'> &
  Pick<Prisma.WebhookEventModel, 'type' | 'body'>;

/** A claim's answer for one requested id: the claimed columns, or the delivery's state when it was not claimed. */
type ClaimRow = Partial<Claimed> & {
  requested: string;
  state: DeliveryState | null;
  nextAttemptAt: Prisma.WebhookDeliveryModel['nextAttemptAt'];
  leased: boolean | null;
};

/** What an attempt's outcome makes of its delivery (never `dropped`: only a deletion drops). */
export function nextState(
  attemptsMade: number,
  ok: boolean,
  at: number,
  retryDelaysMs: number[],
): { state: Exclude<DeliveryState, 'dropped'>; nextAttemptAt: number | null } {
  if (ok) return { state: 'completed', nextAttemptAt: null };
  if (attemptsMade >= MAX_ATTEMPTS) return { state: 'dead', nextAttemptAt: null };
  return { state: 'pending', nextAttemptAt: at + retryDelaysMs[attemptsMade - 1]! };
}

/**
 * Takes the leases of due, pending deliveries of live subscriptions in one statement: concurrent jobs for one
 * delivery (a retry racing the sweep, say) cannot both send it. For each id, either what its attempt needs, or
 * when it falls due (pending, not leased, not yet due on our clock), or nothing (done, dead, dropped, leased).
 */
export function createClaimer(
  sql: Sql,
  log?: Logger,
): (request: { id: string; now: Date; leaseUntil: Date }) => Promise<{ claimed?: Claimed; dueAt?: Date }> {
  return batched(
    async (requests) => {
      const rows = await sql.query<ClaimRow>(
        `WITH wanted AS (
         SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[]) AS w(id, now, lease_until)
       ), won AS (
         UPDATE webhook_deliveries d SET lease_until = w.lease_until
         FROM wanted w, webhook_subscriptions s, webhook_events e
         WHERE d.id = w.id AND s.id = d.subscription_id AND e.id = d.event_id AND s.deleted_at IS NULL
           AND d.state = 'pending' AND d.next_attempt_at <= w.now AND (d.lease_until IS NULL OR d.lease_until <= w.now)
         RETURNING d.id, s.account_id, d.subscription_id, d.event_id, d.attempts, s.url, s.secret, e.type, e.body,
           CASE WHEN s.previous_secret_expires_at > w.now THEN s.previous_secret END AS previous_secret
       )
       SELECT w.id AS requested, c.state, c.next_attempt_at AS "nextAttemptAt", c.lease_until > w.now AS leased,
         won.id, won.account_id AS "accountId", won.subscription_id AS "subscriptionId", won.event_id AS "eventId", won.attempts, won.url, won.secret, won.previous_secret AS "previousSecret", won.type, won.body
       FROM wanted w LEFT JOIN webhook_deliveries c ON c.id = w.id LEFT JOIN won ON won.id = w.id`,
        [requests.map((r) => r.id), requests.map((r) => r.now), requests.map((r) => r.leaseUntil)],
      );
      const byId = new Map(rows.map((row) => [row.requested, row]));
      return requests.map((request) => {
        const row = byId.get(request.id);
        if (!row || row.state === null) return {};
        if (row.id) return { claimed: row as Claimed };
        if (row.state === 'pending' && !row.leased && row.nextAttemptAt && row.nextAttemptAt > request.now)
          return { dueAt: row.nextAttemptAt };
        return {};
      });
    },
    { maxBatch: 200, maxInFlight: 2, name: 'delivery claims', log },
  );
}

/** A receiver's text as PostgreSQL holds it: a NUL byte in one answer must not fail the attempts recorded with it. */
const storable = (text: string | null): string | null => text?.replaceAll('\u0000', '\uFFFD') ?? null;

export interface AttemptRecord {
  delivery: Claimed;
  at: number;
  result: AttemptResult;
}

/**
 * Records attempts with group commit: the attempts that finish together share one transaction holding each
 * attempt row, each delivery's new state, the jobs of the next attempts and the audit entries of deliveries that
 * died. A delivery dropped meanwhile (its subscription deleted) keeps `dropped` and gets no next job. A failed
 * transaction keeps nothing, so batched() records each attempt again alone and only the one at fault fails.
 */
export function createRecorder(
  pool: Pool,
  retryDelaysMs: number[],
  log?: Logger,
): (record: AttemptRecord) => Promise<void> {
  return batched(
    async (records) => {
      const outcomes = records.map(({ delivery, at, result }) => ({
        made: delivery.attempts + 1,
        ...nextState(delivery.attempts + 1, result.ok, at, retryDelaysMs),
      }));
      const col = <T>(pick: (r: AttemptRecord, i: number) => T) => records.map(pick);
      await inTransaction(pool, async (tx) => {
        const updated = await tx.query<{ id: string; state: DeliveryState }>(
          `WITH input AS (
           SELECT * FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::int[], $5::text[], $6::int[], $7::text[], $8::text[], $9::timestamptz[])
             AS i(id, made, at, status, error, duration_ms, response_body, state, next_attempt_at)
         ), attempt AS (
           INSERT INTO webhook_attempts (delivery_id, number, at, status, error, duration_ms, response_body)
           SELECT id, made, at, status, error, duration_ms, response_body FROM input
         )
         UPDATE webhook_deliveries d SET attempts = i.made, lease_until = NULL, last_status = i.status, last_error = i.error,
           state = CASE WHEN d.state = 'pending' THEN i.state ELSE d.state END,
           next_attempt_at = CASE WHEN d.state = 'pending' THEN i.next_attempt_at END,
           completed_at = CASE WHEN d.state = 'pending' AND i.state <> 'pending' THEN i.at ELSE d.completed_at END
         FROM input i WHERE d.id = i.id RETURNING d.id, d.state`,
          [
            col((r) => r.delivery.id),
            outcomes.map((o) => o.made),
            col((r) => new Date(r.at)),
            col((r) => r.result.status),
            col((r) => storable(r.result.error)),
            col((r) => r.result.durationMs),
            col((r) => storable(r.result.responseBody)),
            outcomes.map((o) => o.state),
            outcomes.map((o) => (o.nextAttemptAt === null ? null : new Date(o.nextAttemptAt))),
          ],
        );
        const state = new Map(updated.map((u) => [u.id, u.state]));
        const retries = records
          .map((r, i) => ({ r, o: outcomes[i]! }))
          .filter(({ r, o }) => state.get(r.delivery.id) === 'pending' && o.nextAttemptAt !== null);
        await enqueueDeliveries(
          tx,
          retries.map(({ r }) => r.delivery.id),
          retries.map(({ r, o }) => (o.nextAttemptAt! - r.at) / 1000),
        );
        const dead = records
          .filter((r, i) => state.get(r.delivery.id) === 'dead' && outcomes[i]!.state === 'dead')
          .map(({ delivery, at, result }) =>
            auditEntry({
              accountId: delivery.accountId,
              at: new Date(at),
              action: 'webhook_delivery.dead',
              resource: `webhook_delivery:${delivery.id}`,
              outcome: 'failure',
              details: {
                subscriptionId: delivery.subscriptionId,
                eventId: delivery.eventId,
                event: delivery.type,
                attempts: delivery.attempts + 1,
                lastStatus: result.status,
                lastError: result.error,
              },
            }),
          );
        await appendAuditEntries(tx, dead);
        // one digest mail per account, not one per delivery
        await scheduleDeadDigest(
          tx,
          dead.map((entry) => entry.accountId),
        );
      });
      return records.map(() => undefined);
    },
    { maxBatch: 200, maxInFlight: 2, name: 'delivery attempts', log },
  );
}

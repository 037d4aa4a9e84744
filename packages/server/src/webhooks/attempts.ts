import { auditEntry } from '../audit/entry.ts';
import { appendAuditEntries } from '../audit/append.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { batched } from '../db/group-commit.ts';
import type { Logger } from '../log.ts';
import { scheduleDeadDigest } from '../mail/notices.ts';
import { claimDeliveries, recordAttempts, type Claimed } from './attempt-store.ts';
import type { DeliveryState } from './contracts.ts';
import { enqueueDeliveries } from './outbox-store.ts';
import type { AttemptResult } from './post.ts';

/** Attempts per round: the fifth failure makes a delivery dead. */
const MAX_ATTEMPTS = 5;

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
  db: Db,
  log?: Logger,
): (request: { id: string; now: Date; leaseUntil: Date }) => Promise<{ claimed?: Claimed; dueAt?: Date }> {
  return batched(
    async (requests) => {
      const rows = await claimDeliveries(db, requests);
      const byId = new Map(rows.map((row) => [row.requested, row]));
      return requests.map((request) => {
        const row = byId.get(request.id);
        if (!row || row.state === null) return {};
        if (row.id !== null) return { claimed: row as Claimed };
        if (row.state === 'pending' && !row.leased && row.nextAttemptAt && row.nextAttemptAt > request.now)
          return { dueAt: row.nextAttemptAt };
        return {};
      });
    },
    { maxBatch: 200, maxInFlight: 2, name: 'delivery claims', log },
  );
}

/**
 * A receiver's text as PostgreSQL holds it: a NUL byte (or half a UTF-16 pair, which the JSON of the attempts
 * carries as is) in one answer must not fail the attempts recorded with it.
 */
const storable = (text: string | null): string | null =>
  text?.replaceAll('\u0000', '\uFFFD').replace(/\p{Cs}/gu, '\uFFFD') ?? null;

interface AttemptRecord {
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
  db: Db,
  retryDelaysMs: number[],
  log?: Logger,
): (record: AttemptRecord) => Promise<void> {
  return batched(
    async (records) => {
      const outcomes = records.map(({ delivery, at, result }) => ({
        made: delivery.attempts + 1,
        ...nextState(delivery.attempts + 1, result.ok, at, retryDelaysMs),
      }));
      await inTransaction(db, async (tx) => {
        const updated = await recordAttempts(
          tx,
          records.map(({ delivery, at, result }, i) => {
            const { made, state, nextAttemptAt } = outcomes[i]!;
            return {
              id: delivery.id,
              made,
              at: new Date(at),
              status: result.status,
              error: storable(result.error),
              durationMs: result.durationMs,
              responseBody: storable(result.responseBody),
              state,
              nextAttemptAt: nextAttemptAt === null ? null : new Date(nextAttemptAt),
            };
          }),
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

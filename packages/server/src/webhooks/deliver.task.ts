import type { Task } from 'graphile-worker';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { Logger } from '../log.ts';
import { createClaimer, createRecorder, nextState } from './attempts.ts';
import { overdueDeliveries } from './delivery-store.ts';
import { expireListenSubscriptions } from './listen-lease.ts';
import { enqueueDeliveries } from './outbox-store.ts';
import { DELIVERY_TIMEOUT_MS, postWebhook, type AttemptResult } from './post.ts';
import type { WebhookSecrets } from './secret-seal.ts';
import { isUuid } from './store.ts';
import type { UrlPolicy } from './url-guard.ts';
import { tracer, type ActiveSpan } from '../tracing/tracing.ts';
import { deliveryTraceparent } from './delivery-trace.ts';

interface DeliveryDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  policy: UrlPolicy;
  secrets: WebhookSecrets;
  /** The four waits after attempts 1–4 (WEBHOOK_RETRY_DELAYS). */
  retryDelaysMs: number[];
  timeoutMs?: number;
  /** Told of each recorded attempt by what it made of its delivery (the metrics count them). */
  onAttempt?: (outcome: AttemptOutcome) => void;
}

/** What an attempt made of its delivery: `completed`, `failed` (a retry is due later) or `dead` (the last one failed). */
export type AttemptOutcome = 'completed' | 'failed' | 'dead';

/**
 * The delivery job: one attempt, then the delivery's next step (done, dead, or the next job at the next wait on
 * our clock). A job that finds its delivery not yet due moves itself to the due time; one that finds it completed,
 * dead, dropped or leased ends. The lease outlasts the attempt's timeout, so it only lapses when a worker died.
 */
export function deliverTask(deps: DeliveryDeps): Task {
  const { db } = deps;
  const timeoutMs = deps.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const claim = createClaimer(db, deps.log);
  const record = createRecorder(db, deps.retryDelaysMs, deps.log);
  return async (payload) => {
    const deliveryId = String((payload as { deliveryId?: unknown }).deliveryId ?? '');
    if (!isUuid(deliveryId)) return;
    // an attempt joins the trace of the request that caused it (docs/operations.md, "Tracing")
    const parent = await deliveryTraceparent(db, deliveryId);
    const attributes = { 'webhook.delivery_id': deliveryId };
    return tracer().span('webhook delivery', (span) => attempt(deliveryId, span), { parent, attributes });
  };

  async function attempt(deliveryId: string, span: ActiveSpan): Promise<void> {
    const at = deps.clock.now();
    const { claimed, dueAt } = await claim({
      id: deliveryId,
      now: new Date(at),
      leaseUntil: new Date(at + timeoutMs + 5_000),
    });
    if (dueAt) return enqueueDeliveries(db, [deliveryId], (dueAt.getTime() - at) / 1000);
    if (!claimed) return;
    const secret = deps.secrets.open(claimed.secret);
    const previousSecret = claimed.previousSecret === null ? null : (deps.secrets.open(claimed.previousSecret) ?? null);
    if (secret === undefined) deps.log.error({ deliveryId }, UNOPENED_SECRET);
    const result: AttemptResult =
      secret === undefined
        ? { ok: false, status: null, error: UNOPENED_SECRET, durationMs: 0, responseBody: null }
        : await postWebhook(
            {
              url: claimed.url,
              secret,
              previousSecret,
              at,
              deliveryId: claimed.id,
              eventType: claimed.type,
              body: claimed.body,
              listen: claimed.listenExpiresAt !== null,
            },
            deps.policy,
            timeoutMs,
          );
    span.set({ 'http.response.status_code': result.status ?? undefined, 'webhook.attempt': claimed.attempts + 1 });
    await record({ delivery: claimed, at, result });
    if (deps.onAttempt) {
      const { state } = nextState(claimed.attempts + 1, result.ok, at, deps.retryDelaysMs);
      deps.onAttempt(state === 'pending' ? 'failed' : state);
    }
    if (!result.ok)
      deps.log.info(
        { deliveryId, attempt: claimed.attempts + 1, status: result.status, error: result.error },
        'webhook attempt failed',
      );
  }
}

/** An attempt that sends nothing: its secret was sealed under neither SERVICE_SECRET nor SERVICE_SECRET_PREVIOUS. */
const UNOPENED_SECRET = 'the signing secret was sealed under another SERVICE_SECRET: set SERVICE_SECRET_PREVIOUS to it';

/**
 * Finds pending deliveries overdue by more than `graceMs` and not leased, and queues their jobs again: a worker
 * killed mid-attempt leaves its job locked for hours in graphile-worker, and this puts a fresh one next to it.
 * Deletes the `webhooks listen` subscriptions whose CLI is gone first (listen-lease.ts). Runs at worker start and
 * every few seconds; tests call it after moving their clock.
 */
export async function sweepDeliveries(db: Db, clock: Clock, graceMs: number, max = 1_000): Promise<number> {
  await expireListenSubscriptions({ db, clock });
  const now = clock.now();
  const ids = await overdueDeliveries(db, new Date(now - graceMs), new Date(now), max);
  await enqueueDeliveries(db, ids);
  return ids.length;
}

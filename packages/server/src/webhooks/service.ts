import { randomBytes, randomUUID } from 'node:crypto';
import { appendAudit } from '../audit/log.ts';
import { auditEntry } from '../audit/entry.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, pgSql, type Pool } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import { invalidCursor } from '../http/input-rules.ts';
import type { GatedRequest } from '../idempotency/service.ts';
import type { AuthenticatedKey } from '../keys/service.ts';
import type { Delivery, EventKind } from './contracts.ts';
import { enqueueDeliveries } from './outbox.ts';
import {
  deleteSubscription, deliveryPage, insertSubscription, isUrlTaken, isUuid, listSubscriptions, liveSubscriptionTo, ownsSubscription,
} from './store.ts';
import { UnsafeUrlError, vetUrl, type UrlPolicy } from './url-guard.ts';

/** Live subscriptions per account: enough for every environment and team, few enough to fan out cheaply. */
export const MAX_SUBSCRIPTIONS = 25;

export interface CreatedWebhook {
  id: string;
  url: string;
  events: EventKind[];
  secret: string;
  createdAt: string;
}

function invalidUrl(message: string): AppError {
  return new AppError('VALIDATION_FAILED', `url ${message}.`, { errors: [{ path: 'url', message }] });
}

/** 409: one URL at most once per account, so one event is never fanned out twice to the same receiver. */
function alreadySubscribed(id: string): AppError {
  const message = `This account already subscribes this URL (subscription ${id}): reuse it, or delete it first `
    + `(DELETE /v1/webhooks/${id}) to subscribe again.`;
  return new AppError('ALREADY_EXISTS', message, { id });
}

function encodeCursor(row: { createdAt: string; id: string }): string {
  return Buffer.from(`${row.createdAt}|${row.id}`).toString('base64url');
}

/** The position a cursor stands for; 400 before any query for anything we did not issue (an impossible date too). */
function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const [, at = '', id = ''] = match ?? [];
  const createdAt = new Date(at);
  // a real instant prints back as itself (2026-02-30 does not); only the exact text we encode is ours
  const real = !Number.isNaN(createdAt.getTime()) && createdAt.toISOString() === at;
  if (!match || !real || !isUuid(id) || encodeCursor({ createdAt: at, id }) !== cursor) throw invalidCursor();
  return { createdAt, id };
}

export function createWebhookService(deps: { pool: Pool; clock: Clock; policy: UrlPolicy }) {
  const { pool, clock, policy } = deps;
  const sql = pgSql(pool);
  const audit = (auth: AuthenticatedKey, request: GatedRequest, at: Date, action: string, resource: string, details: Record<string, unknown>) =>
    auditEntry({ accountId: auth.accountId, actorKeyPrefix: auth.prefix, at, action, resource, details, origin: request });

  return {
    /**
     * Subscribes after vetting the URL (https, public addresses, allowed ports), stored as `new URL(url).href` so
     * one URL is one subscription per account (409 otherwise); the secret is returned this once.
     */
    async create(auth: AuthenticatedKey, input: { url: string; events: EventKind[] }, request: GatedRequest): Promise<CreatedWebhook> {
      let url: string;
      try {
        url = (await vetUrl(input.url, policy)).url.href;
      } catch (error) {
        if (error instanceof UnsafeUrlError) throw invalidUrl(error.message);
        throw error;
      }
      const events = [...new Set(input.events)];
      const at = new Date(clock.now());
      const created: CreatedWebhook = { id: randomUUID(), url, events, secret: randomBytes(32).toString('hex'), createdAt: at.toISOString() };
      await inTransaction(pool, async (tx) => {
        // the account row's lock serialises concurrent subscribes of one account: the limit and one-URL rule hold
        await tx.query(`SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, [auth.accountId]);
        const existing = await liveSubscriptionTo(tx, auth.accountId, url);
        if (existing) throw alreadySubscribed(existing);
        const [{ live } = { live: 0 }] = await tx.query<{ live: number }>(`SELECT count(*)::int AS live FROM webhook_subscriptions WHERE account_id = $1 AND deleted_at IS NULL`, [auth.accountId]);
        if (live >= MAX_SUBSCRIPTIONS) throw new AppError('VALIDATION_FAILED', `An account may have at most ${MAX_SUBSCRIPTIONS} subscriptions; delete one first.`, { errors: [{ path: '', message: `at most ${MAX_SUBSCRIPTIONS} subscriptions` }] });
        await insertSubscription(tx, { ...created, accountId: auth.accountId, createdAt: at });
        await appendAudit(tx, audit(auth, request, at, 'webhook.subscribed', `webhook:${created.id}`, { url: created.url, events }));
        await request.idempotency?.complete(tx, created); // last: once stored, the claim is never released
      }).catch(async (error: unknown) => {
        // the unique index is the backstop for a writer that skips the account lock
        const existing = isUrlTaken(error) ? await liveSubscriptionTo(sql, auth.accountId, url) : undefined;
        throw existing ? alreadySubscribed(existing) : error;
      });
      request.idempotency?.markCompleted();
      return created;
    },

    async list(auth: AuthenticatedKey): Promise<{ data: Array<{ id: string; url: string; events: EventKind[]; createdAt: string }> }> {
      const rows = await listSubscriptions(sql, auth.accountId);
      return { data: rows.map((r) => ({ id: r.id, url: r.url, events: r.events as EventKind[], createdAt: r.createdAt.toISOString() })) };
    },

    /** Deletes the caller's subscription and drops its pending deliveries; another account's is "not found". */
    async delete(auth: AuthenticatedKey, id: string, request: GatedRequest): Promise<void> {
      const at = new Date(clock.now());
      await inTransaction(pool, async (tx) => {
        const gone = await deleteSubscription(tx, auth.accountId, id, at);
        if (!gone) throw notFound(`Webhook subscription ${id}`);
        await appendAudit(tx, audit(auth, request, at, 'webhook.deleted', `webhook:${id}`, { url: gone.url, droppedDeliveries: gone.dropped }));
        await request.idempotency?.complete(tx, undefined);
      });
      request.idempotency?.markCompleted();
    },

    async deliveries(auth: AuthenticatedKey, input: { id: string; state?: string; limit: number; cursor?: string }): Promise<{ data: Delivery[]; nextCursor: string | null }> {
      const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
      if (!(await ownsSubscription(sql, auth.accountId, input.id))) throw notFound(`Webhook subscription ${input.id}`);
      const page = await deliveryPage(sql, input.id, { state: input.state, limit: input.limit, after });
      const last = page.rows.at(-1);
      return { data: page.rows, nextCursor: page.more && last ? encodeCursor(last) : null };
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;

/**
 * Support's replay of a dead delivery: a new round of up to five attempts with the same
 * X-Service-Delivery, so the receiver's idempotency still holds. Undefined when there is no such delivery.
 */
export async function replayDelivery(pool: Pool, clock: Clock, id: string, actor: string): Promise<{ state: string; replayed: boolean } | undefined> {
  if (!isUuid(id)) return undefined;
  const at = new Date(clock.now());
  return inTransaction(pool, async (tx) => {
    const [row] = await tx.query<{ state: string; accountId: string; subscriptionId: string; live: boolean }>(
      `SELECT d.state, s.account_id AS "accountId", d.subscription_id AS "subscriptionId", s.deleted_at IS NULL AS live
       FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.id = $1 FOR UPDATE OF d`,
      [id],
    );
    if (!row) return undefined;
    if (!row.live || row.state !== 'dead') return { state: row.live ? row.state : 'subscription deleted', replayed: false };
    await tx.query(
      `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, replays = replays + 1, next_attempt_at = $2, lease_until = NULL, completed_at = NULL WHERE id = $1`,
      [id, at],
    );
    await enqueueDeliveries(tx, [id]);
    await appendAudit(tx, auditEntry({ accountId: row.accountId, at, action: 'webhook_delivery.replayed', resource: `webhook_delivery:${id}`, details: { subscriptionId: row.subscriptionId, previousState: row.state, by: actor } }));
    return { state: 'pending', replayed: true };
  });
}

import { randomUUID } from 'node:crypto';
import type { AuditAction } from '@attestation-service/protocol';
import { lockAccount } from '../accounts/store.ts';
import { appendAudit } from '../audit/append.ts';
import { auditEntry, type MemberActor } from '../audit/entry.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { AppError, invalidField, notFound } from '../errors.ts';
import { pageOf, positionCursor } from '../http/cursor.ts';
import type { GatedRequest } from '../idempotency/service.ts';
import type { AuthenticatedKey } from '../keys/service.ts';
import type { Delivery, DeliveryState, EventKind } from './contracts.ts';
import { deliveryPage } from './delivery-store.ts';
import { newSecret, rotateSecret, rotationAt, sendTestEvent, type AuditOf, type RotatedSecret } from './rotation.ts';
import type { WebhookSecrets } from './secret-seal.ts';
import { standardWebhooksSecret } from './signature.ts';
import {
  countLiveSubscriptions,
  deleteSubscription,
  insertSubscription,
  isUrlTaken,
  listSubscriptions,
  liveSubscriptionTo,
  ownsSubscription,
} from './store.ts';
import { UnsafeUrlError, vetUrl, type UrlPolicy } from './url-guard.ts';

/**
 * Who manages subscriptions: an API key (the REST API), or a dashboard member acting in an account; the audit entry
 * names whichever acted.
 */
export type WebhookCaller = Pick<AuthenticatedKey, 'accountId'> & { prefix?: string; member?: MemberActor };

/** Live subscriptions per account: enough for every environment and team, few enough to fan out cheaply. */
export const MAX_SUBSCRIPTIONS = 25;

interface CreatedWebhook {
  id: string;
  url: string;
  events: EventKind[];
  secret: string;
  standardWebhooksSecret: string;
  createdAt: string;
  rotation: null;
}

interface ListedWebhook {
  id: string;
  url: string;
  events: EventKind[];
  createdAt: string;
  rotation: { previousSecretExpiresAt: string } | null;
}

const invalidUrl = (message: string): AppError => invalidField('url', message);

/** The way out for a developer whose receiver is on their own machine; never said in production. */
export const LOCAL_RECEIVER_HINT =
  'for a receiver on this machine in development, set WEBHOOK_ALLOW_PRIVATE_URLS=true, ' +
  'or use `attestation-service webhooks listen --forward-to URL`';

/** A refused URL, with the development hint when the refusal is one a local receiver runs into. */
function refusedUrl(error: UnsafeUrlError, development: boolean): AppError {
  const local = development && (error.kind === 'scheme' || error.kind === 'private');
  return invalidUrl(local ? `${error.message} (${LOCAL_RECEIVER_HINT})` : error.message);
}

/** 409: one URL at most once per account, so one event is never fanned out twice to the same receiver. */
function alreadySubscribed(id: string): AppError {
  const message =
    `This account already subscribes this URL (subscription ${id}): reuse it, or delete it first ` +
    `(DELETE /v1/webhooks/${id}) to subscribe again.`;
  return new AppError('ALREADY_EXISTS', message, { id });
}

/** Opaque page cursors of deliveries: the last one's time and id. */
const cursor = positionCursor('uuid');

interface WebhookDeps {
  db: Db;
  clock: Clock;
  policy: UrlPolicy;
  secrets: WebhookSecrets;
  development?: boolean;
}

/**
 * Subscriptions and their deliveries' history: the cold paths. `development` (no production config): a refused
 * loopback or http URL names the setting and the CLI that take one.
 */
export function createWebhookService(deps: WebhookDeps) {
  const { db, clock } = deps;
  const auditOf =
    (auth: WebhookCaller, request: GatedRequest): AuditOf =>
    (at, action, resource, details) =>
      webhookAudit(auth, request, at, action, resource, details);

  return {
    /**
     * Subscribes after vetting the URL (https, public addresses, allowed ports), stored as `new URL(url).href` so
     * one URL is one subscription per account (409 otherwise); the secret is returned this once.
     */
    create: (auth: WebhookCaller, input: { url: string; events: EventKind[] }, request: GatedRequest) =>
      createSubscription(deps, auth, input, request),

    async list(auth: WebhookCaller): Promise<{ data: ListedWebhook[] }> {
      const rows = await listSubscriptions(db, auth.accountId);
      const now = clock.now();
      return {
        data: rows.map((r) => ({
          id: r.id,
          url: r.url,
          events: r.events as EventKind[],
          createdAt: r.createdAt.toISOString(),
          rotation: rotationAt(r.previousSecretExpiresAt, now),
        })),
      };
    },

    /** A new secret (shown once); the previous one keeps signing for the window asked. */
    rotateSecret: (
      auth: WebhookCaller,
      input: { id: string; previousSecretTtlHours: number },
      request: GatedRequest,
    ): Promise<RotatedSecret> => rotateSecret(deps, auth.accountId, input, request, auditOf(auth, request)),

    /** A `webhook.test` delivery to this subscription, by the normal path. */
    sendTest: (auth: WebhookCaller, id: string, request: GatedRequest) =>
      sendTestEvent(deps, auth.accountId, id, request, auditOf(auth, request)),

    /** Deletes the caller's subscription and drops its pending deliveries; another account's is "not found". */
    async delete(auth: WebhookCaller, id: string, request: GatedRequest): Promise<void> {
      const at = new Date(clock.now());
      await inTransaction(db, async (tx) => {
        const gone = await deleteSubscription(tx, auth.accountId, id, at);
        if (!gone) throw notFound(`Webhook subscription ${id}`);
        await appendAudit(
          tx,
          webhookAudit(auth, request, at, 'webhook.deleted', `webhook:${id}`, {
            url: gone.url,
            droppedDeliveries: gone.dropped,
          }),
        );
        await request.idempotency?.complete(tx, undefined);
      });
      request.idempotency?.markCompleted();
    },

    async deliveries(
      auth: WebhookCaller,
      input: { id: string; state?: DeliveryState; limit: number; cursor?: string },
    ): Promise<{ data: Delivery[]; nextCursor: string | null }> {
      const position = input.cursor === undefined ? undefined : cursor.decode(input.cursor);
      const after = position && { createdAt: position.at, id: position.id };
      if (!(await ownsSubscription(db, auth.accountId, input.id))) throw notFound(`Webhook subscription ${input.id}`);
      const rows = await deliveryPage(db, input.id, { state: input.state, limit: input.limit, after });
      const page = pageOf(rows, input.limit, (last) => cursor.encode(last.createdAt, last.id));
      return { data: page.rows, nextCursor: page.nextCursor };
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;

/** A subscription change's audit entry, in the name of whichever caller acted (a key or a member). */
function webhookAudit(
  auth: WebhookCaller,
  request: GatedRequest,
  at: Date,
  action: AuditAction,
  resource: string,
  details: Record<string, unknown>,
) {
  return auditEntry({
    accountId: auth.accountId,
    actorKeyPrefix: auth.prefix ?? null,
    actorMember: auth.member ?? null,
    at,
    action,
    resource,
    details,
    origin: request,
  });
}

/** The service's create: the URL vetted, then the subscription stored and audited under the account's lock. */
async function createSubscription(
  deps: WebhookDeps,
  auth: WebhookCaller,
  input: { url: string; events: EventKind[] },
  request: GatedRequest,
): Promise<CreatedWebhook> {
  const { db, clock } = deps;
  let url: string;
  try {
    url = (await vetUrl(input.url, deps.policy)).url.href;
  } catch (error) {
    if (error instanceof UnsafeUrlError) throw refusedUrl(error, deps.development ?? false);
    throw error;
  }
  const events = [...new Set(input.events)];
  const at = new Date(clock.now());
  const secret = newSecret();
  const created: CreatedWebhook = {
    id: randomUUID(),
    url,
    events,
    secret,
    standardWebhooksSecret: standardWebhooksSecret(secret),
    createdAt: at.toISOString(),
    rotation: null,
  };
  await inTransaction(db, async (tx) => {
    // the account row's lock serialises concurrent subscribes of one account: the limit and one-URL rule hold
    // concurrent subscribes of one account queue here, so the limit and the one-URL rule hold
    await lockAccount(tx, auth.accountId, 'update');
    const existing = await liveSubscriptionTo(tx, auth.accountId, url);
    if (existing) throw alreadySubscribed(existing);
    const live = await countLiveSubscriptions(tx, auth.accountId);
    if (live >= MAX_SUBSCRIPTIONS)
      throw new AppError(
        'VALIDATION_FAILED',
        `An account may have at most ${MAX_SUBSCRIPTIONS} subscriptions; delete one first.`,
        { errors: [{ path: '', message: `at most ${MAX_SUBSCRIPTIONS} subscriptions` }] },
      );
    await insertSubscription(tx, {
      id: created.id,
      url,
      events,
      secret: deps.secrets.seal(secret),
      accountId: auth.accountId,
      createdAt: at,
    });
    await appendAudit(
      tx,
      webhookAudit(auth, request, at, 'webhook.subscribed', `webhook:${created.id}`, { url: created.url, events }),
    );
    await request.idempotency?.complete(tx, created, { sealed: true }); // last: once stored, the claim is never released
  }).catch(async (error: unknown) => {
    // the unique index is the backstop for a writer that skips the account lock
    const existing = isUrlTaken(error) ? await liveSubscriptionTo(db, auth.accountId, url) : undefined;
    throw existing ? alreadySubscribed(existing) : error;
  });
  request.idempotency?.markCompleted();
  return created;
}

// support's replay lives beside the service; its importers name it here
export { replayDelivery } from './replay.ts';

import { randomBytes } from 'node:crypto';
import type { AuditAction } from '@attestation-service/protocol';
import type { AuditFields } from '../audit/chain.ts';
import { appendAudit } from '../audit/append.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { notFound } from '../errors.ts';
import type { GatedRequest } from '../idempotency/service.ts';
import { TEST_EVENT } from './contracts.ts';
import { emitTestEvent } from './outbox.ts';
import type { WebhookSecrets } from './secret-seal.ts';
import { standardWebhooksSecret } from './signature.ts';
import { lockLiveSubscription, rotateSubscriptionSecret } from './store.ts';

/** Builds one audit entry of the acting caller (the service's, so key and member are named alike). */
export type AuditOf = (
  at: Date,
  action: AuditAction,
  resource: string,
  details: Record<string, unknown>,
) => AuditFields;

export interface RotatedSecret {
  id: string;
  secret: string;
  standardWebhooksSecret: string;
  rotation: { previousSecretExpiresAt: string } | null;
}

/** 32 random bytes, hex: the form of a subscription's secret the API shows (docs/webhooks.md). */
export const newSecret = (): string => randomBytes(32).toString('hex');

/** A rotation's window as the API shows it: null once it has ended (the previous secret no longer signs). */
export function rotationAt(expiresAt: Date | null, now: number): { previousSecretExpiresAt: string } | null {
  return expiresAt && expiresAt.getTime() > now ? { previousSecretExpiresAt: expiresAt.toISOString() } : null;
}

/**
 * A new secret for the caller's subscription, shown in this answer only; the previous one keeps signing for
 * `previousSecretTtlHours` (0: retired at once). The change, its audit entry (never a secret) and the
 * Idempotency-Key's stored answer commit together.
 */
export async function rotateSecret(
  deps: { db: Db; clock: Clock; secrets: WebhookSecrets },
  accountId: string,
  input: { id: string; previousSecretTtlHours: number },
  request: Pick<GatedRequest, 'idempotency'>,
  audit: AuditOf,
): Promise<RotatedSecret> {
  const at = new Date(deps.clock.now());
  const until =
    input.previousSecretTtlHours > 0 ? new Date(at.getTime() + input.previousSecretTtlHours * 3_600_000) : null;
  const secret = newSecret();
  const rotated: RotatedSecret = {
    id: input.id,
    secret,
    standardWebhooksSecret: standardWebhooksSecret(secret),
    rotation: rotationAt(until, at.getTime()),
  };
  await inTransaction(deps.db, async (tx) => {
    const row = await rotateSubscriptionSecret(tx, accountId, input.id, deps.secrets.seal(secret), until);
    if (!row) throw notFound(`Webhook subscription ${input.id}`);
    await appendAudit(
      tx,
      audit(at, 'webhook.secret_rotated', `webhook:${input.id}`, {
        url: row.url,
        previousSecretExpiresAt: until?.toISOString() ?? null,
      }),
    );
    await request.idempotency?.complete(tx, rotated, { sealed: true });
  });
  request.idempotency?.markCompleted();
  return rotated;
}

/**
 * Queues a `webhook.test` event to the caller's subscription through the normal outbox: delivered, retried and
 * signed as any event, listed among its deliveries, audited. It counts against no quota.
 */
export async function sendTestEvent(
  deps: { db: Db; clock: Clock },
  accountId: string,
  id: string,
  request: Pick<GatedRequest, 'idempotency'>,
  audit: AuditOf,
): Promise<{ eventId: string; deliveryId: string }> {
  const at = new Date(deps.clock.now());
  const sent = await inTransaction(deps.db, async (tx) => {
    if (!(await lockLiveSubscription(tx, accountId, id))) throw notFound(`Webhook subscription ${id}`);
    const queued = await emitTestEvent(tx, { id, accountId }, at);
    await appendAudit(tx, audit(at, 'webhook.test_sent', `webhook:${id}`, { event: TEST_EVENT, ...queued }));
    await request.idempotency?.complete(tx, queued);
    return queued;
  });
  request.idempotency?.markCompleted();
  return sent;
}

import { randomUUID } from 'node:crypto';
import type { AuditAction } from '@attestation-service/protocol';
import { lockAccount } from '../accounts/store.ts';
import { appendAudit } from '../audit/append.ts';
import { auditEntry } from '../audit/entry.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import type { EventKind } from './contracts.ts';
import { lapsedListenSubscriptions, renewListenLease } from './listen-store.ts';
import { newSecret } from './rotation.ts';
import type { WebhookSecrets } from './secret-seal.ts';
import { MAX_SUBSCRIPTIONS } from './service.ts';
import { standardWebhooksSecret } from './signature.ts';
import { countLiveSubscriptions, deleteSubscription, insertSubscription } from './store.ts';
import { vetLoopbackUrl } from './url-guard.ts';

// A `webhooks listen` subscription lives as long as the CLI that made it: the CLI renews its lease every
// LISTEN_RENEW_MS and deletes it on Ctrl-C; one whose CLI was killed lapses after LISTEN_LEASE_MS and the worker's
// sweep (or the next `listen`) deletes it, dropping what it had pending (docs/decisions.md, "Webhooks listen").

/** How long a listen subscription outlives its CLI's last renewal. */
const LISTEN_LEASE_MS = 2 * 60_000;
/** How often the CLI renews: several renewals fit in a lease, so one slow database round does not lose it. */
export const LISTEN_RENEW_MS = 20_000;

interface Deps {
  db: Db;
  clock: Clock;
}

interface ListenSubscription {
  id: string;
  url: string;
  events: EventKind[];
  secret: string;
  standardWebhooksSecret: string;
}

/** The service's own audit entry (no key, no member: the operator's CLI or the worker acted). */
const serviceAudit = (accountId: string, at: Date, action: AuditAction, id: string, details: Record<string, unknown>) =>
  auditEntry({ accountId, at, action, resource: `webhook:${id}`, details });

/**
 * Subscribes the account's loopback receiver, as the API subscribes any receiver (the account's limit holds, the
 * audit log says so) but with a lease. Only the operator's CLI calls this: the API never makes a loopback one.
 */
export async function openListenSubscription(
  deps: Deps & { secrets: WebhookSecrets },
  accountId: string,
  input: { url: string; events: EventKind[] },
): Promise<ListenSubscription | { refused: string }> {
  const url = vetLoopbackUrl(input.url).url.href;
  const at = new Date(deps.clock.now());
  const secret = newSecret();
  const created = {
    id: randomUUID(),
    url,
    events: input.events,
    secret,
    standardWebhooksSecret: standardWebhooksSecret(secret),
  };
  return inTransaction(deps.db, async (tx) => {
    await lockAccount(tx, accountId, 'update');
    if ((await countLiveSubscriptions(tx, accountId)) >= MAX_SUBSCRIPTIONS)
      return { refused: `the account has ${MAX_SUBSCRIPTIONS} subscriptions, its most; delete one first` };
    await insertSubscription(tx, {
      id: created.id,
      url,
      events: created.events,
      secret: deps.secrets.seal(secret),
      accountId,
      createdAt: at,
      listenExpiresAt: new Date(at.getTime() + LISTEN_LEASE_MS),
    });
    const details = { url, events: created.events, listen: true };
    await appendAudit(tx, serviceAudit(accountId, at, 'webhook.subscribed', created.id, details));
    return created;
  });
}

/** Extends the lease by LISTEN_LEASE_MS from now; false when the subscription is gone (deleted or lapsed). */
export const renewListenSubscription = (deps: Deps, id: string): Promise<boolean> =>
  renewListenLease(deps.db, id, new Date(deps.clock.now() + LISTEN_LEASE_MS));

/**
 * Deletes a listen subscription and drops its pending deliveries, audited with why (`stopped`: its CLI ended;
 * `lapsed`: its lease ran out). False when it was gone already.
 */
export async function closeListenSubscription(
  deps: Deps,
  accountId: string,
  id: string,
  why: 'stopped' | 'lapsed',
): Promise<boolean> {
  const at = new Date(deps.clock.now());
  return inTransaction(deps.db, async (tx) => {
    const gone = await deleteSubscription(tx, accountId, id, at);
    if (!gone) return false;
    const details = { url: gone.url, droppedDeliveries: gone.dropped, listen: why };
    await appendAudit(tx, serviceAudit(accountId, at, 'webhook.deleted', id, details));
    return true;
  });
}

/** Deletes the listen subscriptions whose CLI stopped renewing them (killed, or its machine asleep). */
export async function expireListenSubscriptions(deps: Deps, max = 100): Promise<number> {
  const lapsed = await lapsedListenSubscriptions(deps.db, new Date(deps.clock.now()), max);
  let closed = 0;
  for (const { id, accountId } of lapsed) if (await closeListenSubscription(deps, accountId, id, 'lapsed')) closed++;
  return closed;
}

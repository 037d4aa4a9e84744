import { auditEntry } from '../audit/entry.ts';
import { UsageError } from '../errors.ts';
import type { WithInfrastructure } from '../infrastructure.ts';
import { DELIVERY_STATES, MAX_ROTATION_HOURS, type DeliveryState } from './contracts.ts';
import { rotateSecret, sendTestEvent, type AuditOf } from './rotation.ts';
import { replayDelivery } from './replay.ts';
import { supportDeliveries, type DeliverySummary } from './delivery-store.ts';
import { accountOfSubscription } from './store.ts';
import { plural } from '../plural.ts';
import { loadServiceSecrets } from '../system/service-secret.ts';
import { webhookSecrets } from './secret-seal.ts';
import { listenForDeliveries, listenOptions, untilStopSignal, type ListenFlags } from './listen.ts';

function line(d: DeliverySummary): string {
  const last = d.lastStatus !== null ? `last ${d.lastStatus}` : d.lastError ? `last: ${d.lastError}` : '';
  return `${d.id}  ${d.state.padEnd(9)}  ${d.event.padEnd(19)}  ${d.accountName.padEnd(16)}  ${plural(d.attempts, 'attempt').padEnd(10)}  ${d.createdAt}  ${d.url}  ${last}`.trimEnd();
}

/**
 * `deliveries list [--state S] [--account NAME] [--limit N] [--json]` and `deliveries replay ID`: support's view of
 * deliveries across accounts, and the only way to send a dead delivery again (same X-Service-Delivery). Arguments are
 * checked before the database is opened. Returns false when the command failed (the CLI exits 1).
 */
export async function deliveriesCommand(
  withInfrastructure: WithInfrastructure,
  args: string[],
  flags: {
    state?: string | undefined;
    account?: string | undefined;
    limit?: string | undefined;
    json?: boolean | undefined;
  },
): Promise<boolean> {
  const [action, id] = args;
  if (action !== 'list' && !(action === 'replay' && id))
    throw new UsageError(
      action === 'replay'
        ? 'deliveries replay needs the delivery id'
        : `unknown deliveries command: ${action ?? '(none)'}`,
    );
  if (action === 'list' && flags.state !== undefined && !(DELIVERY_STATES as readonly string[]).includes(flags.state))
    throw new UsageError(`--state must be one of ${DELIVERY_STATES.join(', ')}`);
  const limit = flags.limit === undefined ? 50 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be 1–1000');
  return withInfrastructure(async ({ db, clock }) => {
    if (action === 'list') {
      const rows = await supportDeliveries(db, {
        state: flags.state as DeliveryState | undefined,
        account: flags.account,
        limit,
      });
      for (const row of rows) console.log(flags.json ? JSON.stringify(row) : line(row));
      if (!flags.json && rows.length === 0) console.error('no deliveries');
      return true;
    }
    const outcome = await replayDelivery(db, clock, id!, 'cli');
    if (!outcome) {
      console.error(`no delivery ${id}`);
      return false;
    }
    if (!outcome.replayed) {
      console.error(
        outcome.state === 'subscription deleted'
          ? `delivery ${id} cannot be replayed: its subscription was deleted`
          : `delivery ${id} is ${outcome.state}: only dead deliveries can be replayed`,
      );
      return false;
    }
    console.log(
      flags.json
        ? JSON.stringify({ id, state: outcome.state })
        : `replaying ${id}: queued for delivery with the same X-Service-Delivery`,
    );
    return true;
  });
}

/**
 * `webhooks rotate-secret ID [--keep HOURS] [--json]` and `webhooks test ID [--json]`: the operator's rotation (a
 * customer who lost the secret, or a leak: `--keep 0`) and test event for any account's subscription, audited as
 * the service's (no key, no member). The new secret is printed this once. `webhooks listen --forward-to URL`: a
 * development subscription forwarded to a receiver on this machine until Ctrl-C (listen.ts).
 */
export async function webhooksCommand(
  withInfrastructure: WithInfrastructure,
  args: string[],
  flags: ListenFlags & { keep?: string | undefined; json?: boolean | undefined },
): Promise<boolean> {
  const [action, id] = args;
  if (action === 'listen') {
    const options = listenOptions(flags);
    const stopped = untilStopSignal();
    return withInfrastructure(async (infra) => {
      const secrets = webhookSecrets(await loadServiceSecrets(infra.config));
      return listenForDeliveries({ ...infra, secrets }, options, stopped);
    });
  }
  if ((action !== 'rotate-secret' && action !== 'test') || !id)
    throw new UsageError(
      action === 'rotate-secret' || action === 'test'
        ? `webhooks ${action} needs the subscription id`
        : `unknown webhooks command: ${action ?? '(none)'}`,
    );
  const keep = flags.keep === undefined ? 24 : Number(flags.keep);
  if (!Number.isInteger(keep) || keep < 0 || keep > MAX_ROTATION_HOURS)
    throw new UsageError(`--keep must be a whole number of hours, 0–${MAX_ROTATION_HOURS}`);
  return withInfrastructure(async ({ db, clock, config }) => {
    const secrets = webhookSecrets(await loadServiceSecrets(config));
    const accountId = await accountOfSubscription(db, id);
    if (!accountId) {
      console.error(`no live subscription ${id}`);
      return false;
    }
    const audit: AuditOf = (at, auditAction, resource, details) =>
      auditEntry({ accountId, at, action: auditAction, resource, details });
    if (action === 'test') {
      const sent = await sendTestEvent({ db, clock }, accountId, id, {}, audit);
      console.log(flags.json ? JSON.stringify(sent) : `queued webhook.test for ${id}: delivery ${sent.deliveryId}`);
      return true;
    }
    const rotated = await rotateSecret(
      { db, clock, secrets },
      accountId,
      { id, previousSecretTtlHours: keep },
      {},
      audit,
    );
    if (flags.json) console.log(JSON.stringify(rotated));
    else {
      console.log(`new secret (shown once): ${rotated.secret}`);
      console.log(`Standard Webhooks form:  ${rotated.standardWebhooksSecret}`);
      console.log(
        rotated.rotation
          ? `the previous secret signs too until ${rotated.rotation.previousSecretExpiresAt}`
          : 'the previous secret is retired',
      );
    }
    return true;
  });
}

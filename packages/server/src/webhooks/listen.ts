import { UsageError } from '../errors.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { cliAccount, parseAccountRef, refusedAsFalse, type AccountRef } from '../accounts/cli-account.ts';
import { EVENT_KINDS, type EventKind } from './contracts.ts';
import type { WebhookSecrets } from './secret-seal.ts';
import { startForwarder, type Forwarded } from './listen-forward.ts';
import {
  closeListenSubscription,
  expireListenSubscriptions,
  LISTEN_RENEW_MS,
  openListenSubscription,
  renewListenSubscription,
} from './listen-lease.ts';

/** What listening needs of a CLI command's infrastructure: the database, the clock, and whether this is production. */
interface ListenDeps {
  db: Db;
  clock: Clock;
  config: { productionBecause: string | undefined; webhooks: { allowPrivateUrls: boolean } };
  secrets: WebhookSecrets;
}

interface ListenOptions {
  forwardTo: URL;
  account: AccountRef;
  events: EventKind[];
}

export interface ListenFlags {
  'forward-to'?: string | undefined;
  account?: string | undefined;
  events?: string | undefined;
}

/** Reads `--forward-to URL [--account NAME|id:UUID] [--events a,b]`, before any database is opened. */
export function listenOptions(flags: ListenFlags): ListenOptions {
  const target = flags['forward-to'];
  if (!target)
    throw new UsageError('webhooks listen needs --forward-to URL (your app, e.g. http://localhost:3000/hook)');
  if (!URL.canParse(target) || !['http:', 'https:'].includes(new URL(target).protocol))
    throw new UsageError(`--forward-to ${target}: give an http or https URL`);
  const events = flags.events === undefined ? [...EVENT_KINDS] : flags.events.split(',').map((e) => e.trim());
  const unknown = events.filter((e) => !(EVENT_KINDS as readonly string[]).includes(e));
  if (unknown.length > 0 || events.length === 0)
    throw new UsageError(`--events takes a comma-separated list of ${EVENT_KINDS.join(', ')}`);
  return {
    forwardTo: new URL(target),
    account: parseAccountRef(flags.account ?? 'default'),
    events: [...new Set(events)] as EventKind[],
  };
}

/** One line per delivery: when, what, which delivery, what the service was answered, how long the forward took. */
function forwardedLine(f: Forwarded): string {
  const outcome = f.error ? `${f.status} (${f.error})` : String(f.status);
  return `${f.at.toISOString()}  ${f.event.padEnd(19)}  ${f.deliveryId}  -> ${outcome}  ${f.ms} ms`;
}

/** Resolves once SIGINT or SIGTERM arrives (Ctrl-C): the listener then cleans up and the CLI exits 0. */
export function untilStopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/**
 * `webhooks listen`: a development subscription whose deliveries reach a receiver on this machine, which forwards
 * each one verbatim to `--forward-to` and answers the service with its status, so retries behave as in production.
 * The subscription is deleted when `stopped` resolves; its lease makes it lapse if this process is killed.
 * Returns false when it could not start, or the subscription was deleted under it.
 */
export async function listenForDeliveries(
  infra: ListenDeps,
  options: ListenOptions,
  stopped: Promise<unknown>,
): Promise<boolean> {
  const { config, db, clock, secrets } = infra;
  if (config.productionBecause && !config.webhooks.allowPrivateUrls) {
    console.error(
      `attestation-service: webhooks listen is for development, refused when ${config.productionBecause} ` +
        'unless WEBHOOK_ALLOW_PRIVATE_URLS=true',
    );
    return false;
  }
  const account = await refusedAsFalse(() => cliAccount(db, options.account, { open: false }));
  if (!account) return false;
  await expireListenSubscriptions({ db, clock }); // what a killed listen left, if no worker swept it yet
  const forwarder = await startForwarder(options.forwardTo, (f) => console.log(forwardedLine(f)));
  try {
    const opened = await openListenSubscription({ db, clock, secrets }, account.id, {
      url: forwarder.url,
      events: options.events,
    });
    if ('refused' in opened) {
      console.error(`attestation-service: ${opened.refused}`);
      return false;
    }
    console.log(`subscription ${opened.id} (account ${account.name}, id ${account.id}): ${opened.events.join(', ')}`);
    console.log(`signing secret (shown once): ${opened.secret}`);
    console.log(`Standard Webhooks form:      ${opened.standardWebhooksSecret}`);
    console.log(`forwarding deliveries to ${options.forwardTo.href}; Ctrl-C deletes the subscription and stops`);
    const outcome = await leaseUntil(infra, opened.id, stopped);
    if (outcome === 'gone') {
      console.error(`attestation-service: subscription ${opened.id} was deleted (or its lease lapsed); stopping`);
      return false;
    }
    await closeListenSubscription({ db, clock }, account.id, opened.id, 'stopped');
    console.log(`deleted subscription ${opened.id}`);
    return true;
  } finally {
    await forwarder.close();
  }
}

/** Renews the lease every LISTEN_RENEW_MS until `stopped` resolves (`stopped`) or the subscription is gone. */
async function leaseUntil(
  { db, clock }: ListenDeps,
  id: string,
  stopped: Promise<unknown>,
): Promise<'stopped' | 'gone'> {
  let timer: NodeJS.Timeout | undefined;
  let over = false;
  const gone = new Promise<'gone'>((resolve) => {
    const renew = async () => {
      // a database that is briefly away costs one renewal of several in a lease, not the subscription
      const live = await renewListenSubscription({ db, clock }, id).catch((error: unknown) => {
        console.error(`attestation-service: could not renew the listen lease: ${(error as Error).message}`);
        return true;
      });
      if (!live) resolve('gone');
      else if (!over) later();
    };
    // renew() answers a failed renewal itself; anything else it meets ends the lease
    const later = () => {
      timer = setTimeout(() => {
        renew().catch(() => resolve('gone'));
      }, LISTEN_RENEW_MS);
    };
    later();
  });
  try {
    return await Promise.race([stopped.then(() => 'stopped' as const), gone]);
  } finally {
    over = true; // a renewal in flight schedules no other
    clearTimeout(timer);
  }
}

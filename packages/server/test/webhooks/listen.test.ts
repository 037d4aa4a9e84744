import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, verifyWebhookSignature } from '../../../client/src/webhooks.ts';
import { systemClock } from '../../src/clock.ts';
import { freePort } from '../../src/system/ports.ts';
import { sweepDeliveries } from '../../src/webhooks/deliver.task.ts';
import { CLI, runCli } from '../support/cli.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, startTestService, type TestService } from '../support/service.ts';
import { settledDeliveries, type DeliveryRow } from './support.ts';

// The worker runs in this process WITHOUT WEBHOOK_ALLOW_PRIVATE_URLS: a listen subscription reaches loopback
// anyway, which no API-made subscription can. The CLI gets the setting: DATABASE_URL makes its config production.
let svc: TestService;
let env: NodeJS.ProcessEnv;
const receivers: Receiver[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  svc = await startTestService();
  env = { ...process.env, DATABASE_URL: svc.databaseUrl, LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
}, 60_000);
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await svc?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

interface Listening {
  child: ChildProcess;
  subscriptionId: string;
  secret: string;
  whsec: string;
  /** Everything printed so far. */
  stdout: () => string;
  waitForLine(pattern: RegExp): Promise<string>;
  /** Sends the signal; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `webhooks listen` as a developer runs it, in a child; resolves once it says where it forwards. */
async function listen(...args: string[]): Promise<Listening> {
  const child = spawn(process.execPath, [CLI, 'webhooks', 'listen', ...args], { env });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitForLine = async (pattern: RegExp) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const line = out.split('\n').find((l) => pattern.test(l));
      if (line) return line;
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`no line ${pattern} in:\n${out}\nstderr:\n${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await waitForLine(/^forwarding deliveries to /);
  return {
    child,
    subscriptionId: (await waitForLine(/^subscription /)).split(' ')[1]!,
    secret: (await waitForLine(/^signing secret/)).split(': ')[1]!,
    whsec: (await waitForLine(/^Standard Webhooks form:/)).split(/\s+/).pop()!,
    stdout: () => out,
    waitForLine,
    stop: (signal = 'SIGINT') => (child.kill(signal), exited),
  };
}

const attest = async (key: string) => {
  const body = { type: 'human', content: `listen ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' };
  const res = await call(svc.url, 'POST', '/v1/attestations', { key, body });
  expect(res.status).toBe(201);
  return res.body.uid as string;
};

const subscription = (id: string) =>
  svc.db
    .selectFrom('webhookSubscriptions')
    .select(['deletedAt', 'listenExpiresAt', 'url'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

/** Waits until the subscription's deliveries are recorded as `until` says (and released by their worker). */
const deliveries = (subscriptionId: string, until: (rows: DeliveryRow[]) => boolean) =>
  settledDeliveries(svc.db, subscriptionId, until, 20_000);

describe('webhooks listen', () => {
  it('forwards a signed delivery verbatim to --forward-to, prints it, and deletes the subscription on Ctrl-C', async () => {
    const { key, account } = await svc.createKey('pro');
    const app = await startReceiver(() => ({ status: 200, body: 'thanks' }));
    receivers.push(app);
    const listening = await listen('--forward-to', app.url, '--account', account, '--events', 'attestation.created');
    expect(listening.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(listening.whsec).toMatch(/^whsec_/);
    expect((await subscription(listening.subscriptionId)).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/listen$/);

    const uid = await attest(key);
    const [request] = await app.waitFor(1, 20_000);
    const headers = request!.headers;
    expect(verifyWebhookSignature(request!.body, headers['x-service-signature'] as string, listening.secret)).toBe(
      true,
    );
    const event = verifyWebhook(request!.body, headers, listening.whsec);
    expect(event).toMatchObject({ type: 'attestation.created', data: { uid } });
    expect(headers['x-service-event']).toBe('attestation.created');
    expect(headers['webhook-id']).toBe(headers['x-service-delivery']);

    const deliveryId = headers['x-service-delivery'] as string;
    const line = await listening.waitForLine(new RegExp(deliveryId));
    expect(line).toMatch(
      new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+Z  attestation\\.created +${deliveryId}  -> 200  \\d+ ms$`),
    );
    const [row] = await deliveries(listening.subscriptionId, (rows) => rows[0]?.state === 'completed');
    expect(row).toMatchObject({ id: deliveryId, attempts: 1, lastStatus: 200 });

    expect(await listening.stop('SIGINT')).toBe(0);
    expect(listening.stdout()).toContain(`deleted subscription ${listening.subscriptionId}`);
    expect((await subscription(listening.subscriptionId)).deletedAt).toBeInstanceOf(Date);
    expect((await call(svc.url, 'GET', '/v1/webhooks', { key })).body.data).toEqual([]);
  }, 60_000);

  it('answers 502 when --forward-to is down: the service records a failed attempt and will retry', async () => {
    const { key, account } = await svc.createKey('pro');
    const down = `http://127.0.0.1:${await freePort()}/hook`;
    const listening = await listen('--forward-to', down, '--account', account);
    await attest(key);
    const [row] = await deliveries(listening.subscriptionId, (rows) => rows[0]?.attempts === 1);
    expect(row).toMatchObject({ state: 'pending', lastStatus: 502, lastError: 'receiver answered 502' });
    expect(await listening.waitForLine(new RegExp(row!.id))).toMatch(/-> 502 \(connection failed: ECONNREFUSED\)/);

    expect(await listening.stop('SIGTERM')).toBe(0);
    // deleting the subscription drops what was still to retry
    expect((await deliveries(listening.subscriptionId, (rows) => rows[0]?.state === 'dropped')).length).toBe(1);
  }, 60_000);

  it('a listen whose CLI was killed lapses: the sweep deletes its subscription once the lease runs out', async () => {
    const { account } = await svc.createKey('pro');
    const listening = await listen('--forward-to', 'http://127.0.0.1:9/hook', '--account', account);
    await listening.stop('SIGKILL');
    const before = await subscription(listening.subscriptionId);
    expect(before.deletedAt).toBeNull();
    expect(before.listenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 60_000);

    // as if the lease's two minutes had passed with no renewal
    await svc.db
      .updateTable('webhookSubscriptions')
      .set({ listenExpiresAt: new Date() })
      .where('id', '=', listening.subscriptionId)
      .execute();
    await sweepDeliveries(svc.infrastructure.db, systemClock, 30_000);
    expect((await subscription(listening.subscriptionId)).deletedAt).toBeInstanceOf(Date);
    const [audit] = await svc.db
      .selectFrom('auditEntries')
      .select('details')
      .where('resource', '=', `webhook:${listening.subscriptionId}`)
      .where('action', '=', 'webhook.deleted')
      .execute();
    expect(audit!.details).toMatchObject({ listen: 'lapsed' });
  }, 60_000);

  it('is refused in production unless WEBHOOK_ALLOW_PRIVATE_URLS is set, in one line naming it', async () => {
    const { account } = await svc.createKey('pro');
    const { WEBHOOK_ALLOW_PRIVATE_URLS: _, ...production } = env;
    const refused = await runCli(
      production,
      'webhooks',
      'listen',
      '--forward-to',
      'http://127.0.0.1:9/',
      '--account',
      account,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      'attestation-service: webhooks listen is for development, refused when DATABASE_URL is set unless WEBHOOK_ALLOW_PRIVATE_URLS=true',
    );
    const rows = await svc.db
      .selectFrom('webhookSubscriptions as s')
      .innerJoin('accounts as a', 'a.id', 's.accountId')
      .select('s.id')
      .where('a.name', '=', account)
      .execute();
    expect(rows).toEqual([]);
  });

  it.each([
    [[], /needs --forward-to/],
    [['--forward-to', 'ftp://x/'], /http or https URL/],
    [['--forward-to', 'http://localhost:3000/', '--events', 'attestation.made'], /--events takes/],
  ])('%j exits 2 with a usage message', async (args, message) => {
    const result = await runCli(env, 'webhooks', 'listen', ...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

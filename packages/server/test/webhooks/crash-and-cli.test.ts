import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import '../support/provided.ts';
import { CLI, runCli } from '../support/cli.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, fundedKey, startTestService, type TestService } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

let svc: TestService;
let env: NodeJS.ProcessEnv;
const receivers: Receiver[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  // the API alone in this process; deliveries are the business of worker processes started by the tests
  svc = await startTestService({ worker: false, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  env = {
    ...process.env,
    DATABASE_URL: svc.databaseUrl,
    CHAIN_RPC_URL: svc.chain.rpcUrl,
    EAS_ADDRESS: svc.chain.eas,
    SCHEMA_REGISTRY_ADDRESS: inject('chain').schemaRegistry,
    RELAYER_PRIVATE_KEY: await fundedKey(svc.chain.rpcUrl),
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    LOG_LEVEL: 'warn',
    WORKER_HEALTH_PORT: '0', // its workers at once, and other test files' on this machine
  };
}, 60_000);
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await svc?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

function worker(): ChildProcess {
  const child = spawn(process.execPath, [CLI, 'serve', '--worker'], { env, stdio: ['ignore', 'ignore', 'ignore'] });
  children.push(child);
  return child;
}

const cli = (...args: string[]) => runCli(env, ...args);

async function subscribe(answer: Parameters<typeof startReceiver>[0]) {
  const { key, account } = await svc.createKey('pro');
  const receiver = await startReceiver(answer);
  receivers.push(receiver);
  const created = await call(svc.url, 'POST', '/v1/webhooks', {
    key,
    body: { url: receiver.url, events: ['attestation.created'] },
  });
  return { key, account, receiver, subscriptionId: created.body.id as string };
}

const attest = (key: string) =>
  call(svc.url, 'POST', '/v1/attestations', {
    key,
    body: { type: 'human', content: `crash ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
  });

describe('webhook workers', () => {
  it('SIGKILL with deliveries due and in flight, restart: every delivery arrives', async () => {
    // the first three answers take 3 s, so attempts are in flight when the worker dies
    const { key, receiver, subscriptionId } = await subscribe((_req, i) =>
      i < 3 ? { status: 200, delayMs: 3_000 } : { status: 200 },
    );
    for (let i = 0; i < 20; i++) expect((await attest(key)).status).toBe(201);
    let child = worker();
    await receiver.waitFor(1, 30_000);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    child = worker();
    const completed = async () =>
      (
        await svc.db
          .selectFrom('webhookDeliveries')
          .select('id')
          .where('subscriptionId', '=', subscriptionId)
          .where('state', '=', 'completed')
          .execute()
      ).length;
    await waitFor(async () => (await completed()) === 20, {
      timeout: 60_000,
      interval: 250,
      what: '20 completed deliveries',
    });
    const ids = new Set(receiver.received.map((r) => r.headers['x-service-delivery']));
    expect(ids.size).toBe(20);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }, 90_000);

  it('deliveries list --state dead shows a dead delivery; replay sends it again with the same X-Service-Delivery', async () => {
    let failing = true;
    const { key, account, receiver, subscriptionId } = await subscribe(() => ({ status: failing ? 500 : 200 }));
    await attest(key);
    const [row] = await svc.db
      .selectFrom('webhookDeliveries')
      .select('id')
      .where('subscriptionId', '=', subscriptionId)
      .execute();
    // five failed attempts, as the worker would have recorded them by now
    await svc.db
      .updateTable('webhookDeliveries')
      .set({ state: 'dead', attempts: 5, lastStatus: 500, lastError: 'receiver answered 500', nextAttemptAt: null })
      .where('id', '=', row!.id)
      .execute();

    const listed = await cli('deliveries', 'list', '--state', 'dead', '--account', account, '--json');
    expect(listed.code).toBe(0);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows).toEqual([
      expect.objectContaining({
        id: row!.id,
        state: 'dead',
        event: 'attestation.created',
        accountName: account,
        subscriptionId,
        lastStatus: 500,
      }),
    ]);
    expect(listed.stdout).not.toMatch(/secret/);
    const table = await cli('deliveries', 'list', '--state', 'dead', '--account', account);
    expect(table.stdout).toMatch(new RegExp(`^${row!.id}  dead .* ${account} +5 attempts `, 'm'));

    failing = false;
    const replayed = await cli('deliveries', 'replay', row!.id);
    expect(replayed.code).toBe(0);
    const child = worker();
    const [delivered] = await receiver.waitFor(1, 30_000);
    expect(delivered!.headers['x-service-delivery']).toBe(row!.id);
    child.kill('SIGTERM');
    const audit = await svc.db
      .selectFrom('auditEntries')
      .select('action')
      .where('resource', '=', `webhook_delivery:${row!.id}`)
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['webhook_delivery.replayed']);

    const again = await cli('deliveries', 'replay', row!.id);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/pending|completed/);
    expect((await cli('deliveries', 'replay', '00000000-0000-0000-0000-000000000000')).stderr).toMatch(/no delivery/);
    expect((await call(svc.url, 'DELETE', `/v1/webhooks/${subscriptionId}`, { key })).status).toBe(204);
    const orphan = await cli('deliveries', 'replay', row!.id);
    expect(orphan.code).toBe(1);
    expect(orphan.stderr.trim()).toBe(`delivery ${row!.id} cannot be replayed: its subscription was deleted`);
    expect((await cli('deliveries', 'list', '--state', 'lost')).code).toBe(2);
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/main.ts';
import { createTestDatabase } from '../support/database.ts';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.ts';
import { TEST_SERVICE_SECRET } from '../support/secret.ts';
import { call, fundedKey, type TestService } from '../support/service.ts';
import { createMember, signIn, startDashboardService, trpc } from '../dashboard/support.ts';
import '../support/provided.ts';

// API replicas through PgBouncer in transaction mode (docs/operations.md, "Connection budget"); the worker beside them
// on a direct URL, as WORKER_DATABASE_URL gives it
let bouncer: PgBouncer;
let directUrl: string;
let pooledUrl: string;
let relayerKey: string;
let api: TestService;
let worker: RunningService | undefined;

/** The config of a process of this deployment: the API's pooled URL, the shared relayer key. */
function configFor(env: Record<string, string>) {
  const chain = inject('chain');
  return loadConfig({
    LOG_LEVEL: 'silent',
    DATABASE_URL: pooledUrl,
    CHAIN_RPC_URL: chain.rpcUrl,
    EAS_ADDRESS: chain.eas,
    SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
    RELAYER_PRIVATE_KEY: relayerKey,
    SERVICE_SECRET: TEST_SERVICE_SECRET,
    WORKER_HEALTH_PORT: '0',
    ...env,
  });
}

beforeAll(async () => {
  directUrl = await createTestDatabase();
  bouncer = await startPgBouncer(directUrl, 'transaction');
  pooledUrl = bouncer.url(directUrl);
  relayerKey = await fundedKey(inject('chain').rpcUrl);
  api = await startDashboardService({ env: { DATABASE_URL: pooledUrl, RELAYER_PRIVATE_KEY: relayerKey } });
  worker = await startService(configFor({ WORKER_DATABASE_URL: directUrl }), { parts: { api: false, worker: true } });
}, 90_000);
afterAll(async () => {
  await worker?.stop();
  await api?.stop();
  await bouncer?.stop();
});

const body = (mode: 'offchain' | 'onchain') => ({
  type: 'human',
  content: `pooled ${mode} ${Math.random()}`,
  contentType: 'text/plain',
  mode,
});

describe('an API replica behind PgBouncer in transaction mode', () => {
  it('is ready, serves reads and off-chain creates, and accepts on-chain creates the worker sends', async () => {
    expect(await call(api.url, 'GET', '/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
    const { key } = await api.createKey('pro');
    const offchain = await call(api.url, 'POST', '/v1/attestations', { key, body: body('offchain') });
    expect(offchain.status).toBe(201);
    const read = await call(api.url, 'GET', `/v1/attestations/${offchain.body.uid}`, { key });
    expect(read).toMatchObject({ status: 200, body: { uid: offchain.body.uid } });
    const search = await call(api.url, 'GET', `/v1/attestations?hash=${read.body.contentHash}`, { key });
    expect(search).toMatchObject({ status: 200 });
    expect(JSON.stringify(search.body)).toContain(offchain.body.uid);

    const onchain = await call(api.url, 'POST', '/v1/attestations', { key, body: body('onchain') });
    expect(onchain).toMatchObject({ status: 201, body: { mode: 'onchain' } });
    expect(onchain.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);
  }, 60_000);

  it('answers reads and searches by the dozen: it prepares no statement a pooled connection could lose', async () => {
    const { key } = await api.createKey('pro');
    const made = await call(api.url, 'POST', '/v1/attestations', { key, body: body('offchain') });
    const { uid, contentHash } = (await call(api.url, 'GET', `/v1/attestations/${made.body.uid}`)).body;
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          call(api.url, 'GET', i % 2 ? `/v1/attestations/${uid}` : `/v1/attestations?hash=${contentHash}`, { key }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    }
  }, 60_000);

  it('signs a dashboard member in and answers their calls', async () => {
    const member = await createMember(api, 'owner');
    const again = await signIn(api, { email: member.email, password: member.password });
    expect(again.status).toBe(200);
    const me = await trpc(api, 'dashboard.session.me', { cookie: again.cookie });
    expect(me).toMatchObject({ status: 200, body: { result: { data: { user: { email: member.email } } } } });
  }, 30_000);

  it('boots a second replica through it (migrations under their lock) and leaves no lock behind', async () => {
    const second = await startService(configFor({ PORT: '0' }), { parts: { api: true, worker: false } });
    try {
      expect((await call(second.apiUrl, 'GET', '/readyz')).status).toBe(200);
    } finally {
      await second.stop();
    }
    // a session-level lock taken through the pooler would stay with a server connection, and the next boot would
    // wait for it forever (raw SQL: pg_locks is PostgreSQL's catalog, not one of the service's tables)
    const held = await api.sql.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 72707369`);
    expect(held).toEqual([]);
  }, 60_000);
});

describe('a worker pointed at the transaction pooler', () => {
  it('refuses to start, saying to use a direct URL or session pooling', async () => {
    const started = startService(configFor({}), { parts: { api: false, worker: true } });
    await expect(started).rejects.toThrow(/transaction-mode pooler.*WORKER_DATABASE_URL.*PostgreSQL directly.*session/);
  }, 30_000);

  it('starts through a session-mode pool', async () => {
    const session = await startPgBouncer(directUrl, 'session');
    try {
      const config = configFor({ WORKER_DATABASE_URL: session.url(directUrl) });
      const started = await startService(config, { parts: { api: false, worker: true } });
      expect((await fetch(`${started.workerHealthUrl}/readyz`)).status).toBe(200);
      await started.stop();
    } finally {
      await session.stop();
    }
  }, 60_000);
});

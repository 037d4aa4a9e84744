import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../src/main.ts';
import { createHealthService } from '../../src/system/health.ts';
import { runnerComponent, type StartedWorker } from '../../src/worker.ts';
import { createTestDatabase } from '../support/database.ts';
import { TEST_SERVICE_SECRET } from '../support/secret.ts';
import { fundedKey } from '../support/service.ts';
import '../support/provided.ts';

// `serve --worker` is startService with the worker part alone: what the launcher runs, in this process
let worker: RunningService;
let databaseName: string;

beforeAll(async () => {
  const chain = inject('chain');
  const databaseUrl = await createTestDatabase();
  databaseName = new URL(databaseUrl).pathname.slice(1);
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATABASE_URL: databaseUrl,
    CHAIN_RPC_URL: chain.rpcUrl,
    EAS_ADDRESS: chain.eas,
    SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
    RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
    SERVICE_SECRET: TEST_SERVICE_SECRET,
    WORKER_HEALTH_PORT: '0',
  });
  worker = await startService(config, { parts: { api: false, worker: true } });
}, 60_000);
afterAll(async () => {
  await worker?.stop();
});

async function get(path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${worker.workerHealthUrl}${path}`);
  return { status: res.status, body: await res.json() };
}

/**
 * Runs a statement on the run's admin database (never migrated: only these statements). Raw SQL on purpose: the fault
 * is the server refusing connections, set and cleared by statements no typed table holds.
 */
async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('a worker without the API', () => {
  it('answers /healthz with the chain parts and /readyz with the database and the job runner', async () => {
    expect(worker.workerHealthUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await get('/healthz')).toEqual({
      status: 200,
      body: { status: 'ok', components: { chain: 'ok', relayer: 'ok' }, reasons: {} },
    });
    expect(await get('/readyz')).toEqual({
      status: 200,
      body: { status: 'ready', components: { database: 'ok', worker: 'ok' } },
    });
    expect((await get('/metrics')).status).toBe(404);
  });

  it('is not ready while its database refuses connections, and asks for a restart if its runner died of it', async () => {
    const name = `"${databaseName}"`;
    await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    try {
      // the worker's open connections go too: every check needs a new one
      await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${databaseName}'`);
      expect(await get('/readyz')).toMatchObject({
        status: 503,
        body: { code: 'NOT_READY', details: { components: { database: 'unavailable' } } },
      });
    } finally {
      await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    }
    await expect.poll(async () => (await get('/readyz')).body.details?.components?.database ?? 'ok').toBe('ok');
    // graphile-worker gives its runner up when a job's outcome cannot be written (the relay job was running): the
    // liveness probe then fails, for the orchestrator to restart the process; a runner that survived stays live
    const [health, ready] = [await get('/healthz'), await get('/readyz')];
    if (ready.status === 200) expect(health.status).toBe(200);
    else {
      expect(ready.body.details).toEqual({
        components: { database: 'ok', worker: 'unavailable' },
        failing: ['worker'],
      });
      expect(health).toEqual({
        status: 503,
        body: { code: 'NOT_LIVE', message: 'the job runner stopped: restart the process.' },
      });
    }
  }, 30_000);

  it('closes its probes when it stops', async () => {
    const url = worker.workerHealthUrl!;
    await worker.stop();
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  }, 30_000);
});

describe('the job runner of an all-in-one serve', () => {
  it("shows on the API's /healthz: ok while it runs, degraded with the reason once it stopped for good", () => {
    const runner = { running: true } as StartedWorker;
    const health = createHealthService({});
    health.report(() => runnerComponent(runner));
    expect(health.health()).toEqual({ status: 'ok', components: { worker: 'ok' }, reasons: {} });
    (runner as { running: boolean }).running = false;
    expect(health.health()).toEqual({
      status: 'degraded',
      components: { worker: 'degraded' },
      reasons: { worker: expect.stringContaining('the job runner stopped') },
    });
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevChain, type DevChain } from '../../src/chain/dev-chain.ts';
import { recordedLog } from '../support/recorded-log.ts';
import { call, fundedKey, startTestService, type TestService } from '../support/service.ts';

const ANVIL_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const dir = await mkdtemp(join(tmpdir(), 'chain-down-'));
let chain: DevChain;
let svc: TestService;
// this test failed once in CI by its timeout, never here: its steps and the service's log say where, if it fails again
const recorded = recordedLog();

beforeAll(async () => {
  chain = await startDevChain({ dataDir: dir, deployerKey: ANVIL_KEY });
  svc = await startTestService({
    env: {
      CHAIN_RPC_URL: chain.rpcUrl,
      EAS_ADDRESS: chain.eas,
      SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
      RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
    },
    log: recorded.log,
  });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await chain?.stop();
  await rm(dir, { recursive: true, force: true });
});

const body = (mode?: string) => ({
  type: 'human',
  content: `down ${Math.random()}`,
  contentType: 'text/plain',
  ...(mode ? { mode } : {}),
});

describe('when the chain goes away', () => {
  it('on-chain creates answer 503 CHAIN_UNAVAILABLE within 5 s and charge nothing; off-chain creates and reads keep working; the replica stays ready and /healthz says degraded', async () => {
    recorded.showOnFailure();
    const { key, prefix } = await svc.createKey('pro');
    recorded.step('on-chain create');
    expect((await call(svc.url, 'POST', '/v1/attestations', { key, body: body() })).status).toBe(201);
    recorded.step('chain stopping');
    await chain.stop();

    recorded.step('on-chain create with the chain down');
    const started = Date.now();
    const res = await call(svc.url, 'POST', '/v1/attestations', { key, body: body() });
    recorded.step(`answered ${res.status}`);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(res).toMatchObject({ status: 503, body: { code: 'CHAIN_UNAVAILABLE' } });
    expect(res.headers.get('retry-after')).toBeTruthy();

    const [usage] = await svc.db
      .selectFrom('monthlyUsage as m')
      .innerJoin('apiKeys as k', 'k.id', 'm.apiKeyId')
      .select('m.onchainUsed')
      .where('k.prefix', '=', prefix)
      .execute();
    expect(usage!.onchainUsed).toBe(1);
    // nothing is left pending or readable: a request that reached the relayer before the probe noticed is kept as `failed`, with no uid
    const rows = await svc.db
      .selectFrom('attestations as a')
      .innerJoin('apiKeys as k', 'k.id', 'a.apiKeyId')
      .select(['a.status', 'a.uid'])
      .where('k.prefix', '=', prefix)
      .where('a.status', '<>', 'confirmed')
      .execute();
    for (const row of rows) expect(row).toEqual({ status: 'failed', uid: null });

    recorded.step('off-chain create');
    const offchain = await call(svc.url, 'POST', '/v1/attestations', { key, body: body('offchain') });
    expect(offchain.status).toBe(201);
    expect((await call(svc.url, 'GET', `/v1/attestations/${offchain.body.uid}`)).status).toBe(200);
    const ready = await call(svc.url, 'GET', '/readyz');
    expect(ready).toMatchObject({ status: 200, body: { status: 'ready', components: { database: 'ok' } } });
    expect(ready.body.components).not.toHaveProperty('chain');
    // /healthz reports the background probe's last answer (every 2 s)
    recorded.step('waiting for /healthz to say degraded');
    await expect
      .poll(async () => (await call(svc.url, 'GET', '/healthz')).body, { timeout: 10_000 })
      .toEqual({
        status: 'degraded',
        components: { chain: 'degraded', relayer: 'unknown', worker: 'ok' },
        reasons: {
          chain: 'the chain RPC is unreachable',
          relayer: 'no balance without the chain RPC',
          mail: expect.stringContaining('SMTP_URL is not set'),
        },
      });
  }, 120_000); // longer than a create's own wait for the relayer (60 s), so that a stuck one fails by its answer
});

describe('when the relayer runs out of funds', () => {
  it('on-chain creates answer 503 CHAIN_UNAVAILABLE and /healthz says why while /readyz stays 200; nothing is charged', async () => {
    const ownDir = await mkdtemp(join(tmpdir(), 'no-funds-'));
    const own = await startDevChain({ dataDir: ownDir, deployerKey: ANVIL_KEY });
    const key = await fundedKey(own.rpcUrl);
    const poor = await startTestService({
      env: {
        CHAIN_RPC_URL: own.rpcUrl,
        EAS_ADDRESS: own.eas,
        SCHEMA_REGISTRY_ADDRESS: own.schemaRegistry,
        RELAYER_PRIVATE_KEY: key,
      },
    });
    try {
      const { privateKeyToAccount } = await import('viem/accounts');
      await fetch(own.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'anvil_setBalance',
          params: [privateKeyToAccount(key as `0x${string}`).address, '0x0'],
        }),
      });
      // the probe runs every 2 s in the background; /healthz reports its last answer
      await expect
        .poll(async () => (await call(poor.url, 'GET', '/healthz')).body, { timeout: 10_000 })
        .toEqual({
          status: 'degraded',
          components: { chain: 'ok', relayer: 'degraded', worker: 'ok' },
          reasons: { relayer: 'the relayer is out of funds', mail: expect.stringContaining('SMTP_URL is not set') },
        });
      expect(await call(poor.url, 'GET', '/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
      const { key: apiKey, prefix } = await poor.createKey('pro');
      const res = await call(poor.url, 'POST', '/v1/attestations', { key: apiKey, body: body() });
      expect(res).toMatchObject({
        status: 503,
        body: { code: 'CHAIN_UNAVAILABLE', message: expect.stringContaining('out of funds') },
      });
      const rows = await poor.db
        .selectFrom('monthlyUsage as m')
        .innerJoin('apiKeys as k', 'k.id', 'm.apiKeyId')
        .select('m.period')
        .where('k.prefix', '=', prefix)
        .where('m.onchainUsed', '>', 0)
        .execute();
      expect(rows).toEqual([]);
    } finally {
      await poor.stop();
      await own.stop();
      await rm(ownDir, { recursive: true, force: true });
    }
  }, 60_000);
});

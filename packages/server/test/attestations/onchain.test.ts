import { EAS } from '@ethereum-attestation-service/eas-sdk';
import { JsonRpcProvider } from 'ethers';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_UID } from '@attestation-service/protocol';
import { injectInsertFault } from '../support/faults.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let provider: JsonRpcProvider;
let eas: EAS;

beforeAll(async () => {
  svc = await startTestService({ env: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' } });
  const chain = svc.config.chain;
  provider = new JsonRpcProvider(chain.rpcUrl, undefined, { staticNetwork: true });
  eas = new EAS(chain.easAddress!);
  eas.connect(provider as never);
});
afterAll(async () => {
  provider?.destroy();
  await svc?.stop();
});

const sha = (text: string) => `0x${createHash('sha256').update(text).digest('hex')}`;

describe('on-chain attestations on a real anvil with the real EAS contracts', () => {
  it('creates one: 201 with the uid from the Attested log and the real txHash; the EAS SDK reads it back', async () => {
    const { key } = await svc.createKey('pro');
    const content = `on-chain ${Math.random()}`;
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'ai', content, contentType: 'text/plain' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      uid: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      mode: 'onchain',
    });

    const onchain = await eas.getAttestation(res.body.uid);
    expect(onchain.schema).toBe(SCHEMA_UID);
    expect(onchain.attester).toBe(
      svc.services.attestations ? (await call(svc.url, 'GET', `/v1/attestations/${res.body.uid}`)).body.attester : '',
    );
    expect(onchain.data.toLowerCase()).toContain(sha(content).slice(2));

    const record = (await call(svc.url, 'GET', `/v1/attestations/${res.body.uid}`)).body;
    expect(record).toMatchObject({
      mode: 'onchain',
      txHash: res.body.txHash,
      contentHash: sha(content),
      schemaUid: SCHEMA_UID,
      chainId: 31337,
      blockNumber: expect.any(Number),
      offchain: null,
    });
  }, 60_000);
});

describe('on-chain quota under concurrency', () => {
  const body = () => ({ type: 'human', content: `quota ${Math.random()}`, contentType: 'text/plain' });

  it('50 concurrent creates with 20 left: exactly 20 succeed, 30 get QUOTA_EXCEEDED with used at the limit, and the chain holds exactly 20 new attestations', async () => {
    // a pro key charged to 1980 of 2000: the free tier's 30 calls per minute would refuse 20 of the 50 before the quota could
    const { key, prefix } = await svc.createKey('pro');
    await svc.chargeQuota(prefix, 1980);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => call(svc.url, 'POST', '/v1/attestations', { key, body: body() })),
    );
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 429);
    expect(created).toHaveLength(20);
    expect(refused).toHaveLength(30);
    for (const r of refused)
      expect(r.body).toMatchObject({
        code: 'QUOTA_EXCEEDED',
        details: { tier: 'pro', kind: 'onchain', used: 2000, limit: 2000, resetsAt: expect.any(Number) },
      });
    const uids = new Set(created.map((r) => r.body.uid));
    expect(uids.size).toBe(20);
    for (const uid of uids) expect((await eas.getAttestation(uid)).uid).toBe(uid);
    // coalescing: twenty creates went out in fewer transactions than twenty
    expect(new Set(created.map((r) => r.body.txHash)).size).toBeLessThan(20);
  }, 120_000);

  it('creates that share a commit stay apart: an exhausted key among others gets its 429 alone, and others commit once', async () => {
    // arriving together, these creates of two accounts are staged in one transaction (docs/decisions.md)
    const exhausted = await svc.createKey('pro');
    await svc.chargeQuota(exhausted.prefix, 2000);
    const healthy = await svc.createKey('pro');
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(svc.url, 'POST', '/v1/attestations', { key: (i % 2 ? exhausted : healthy).key, body: body() }),
      ),
    );
    results.forEach((r, i) => expect(r.status, JSON.stringify(r.body)).toBe(i % 2 ? 429 : 201));
    for (const r of results.filter((_, i) => i % 2))
      expect(r.body.details).toMatchObject({ used: 2000, limit: 2000, scope: 'key' });
    const uids = new Set(results.filter((_, i) => i % 2 === 0).map((r) => r.body.uid));
    expect(uids.size).toBe(15);
    for (const uid of uids) expect((await eas.getAttestation(uid)).uid).toBe(uid);
  }, 120_000);

  it('a member whose row PostgreSQL refuses (an injected fault) gets 500 alone; the others are on chain, its quota untouched', async () => {
    const hashes = Array.from({ length: 12 }, () => sha(`fault ${Math.random()}`));
    const guilty = 5;
    const keys = await Promise.all(hashes.map(() => svc.createKey('pro')));
    const removeFault = await injectInsertFault(svc, hashes[guilty]!);
    let results: Awaited<ReturnType<typeof call>>[];
    try {
      results = await Promise.all(
        hashes.map((contentHash, i) =>
          call(svc.url, 'POST', '/v1/attestations', {
            key: keys[i]!.key,
            body: { type: 'human', contentHash, contentType: 'text/plain' },
          }),
        ),
      );
    } finally {
      await removeFault();
    }
    expect(results[guilty]).toMatchObject({ status: 500, body: { code: 'INTERNAL_ERROR', details: {} } });
    expect(JSON.stringify(results[guilty]!.body)).not.toMatch(/injected|content_hash|INSERT/i);
    const innocent = results.filter((_, i) => i !== guilty);
    expect(innocent.map((r) => r.status)).toEqual(innocent.map(() => 201));
    for (const r of innocent) expect((await eas.getAttestation(r.body.uid)).uid).toBe(r.body.uid);
    // its reservation went with its transaction: the key still has its whole month (2,000) and uses one now
    await svc.chargeQuota(keys[guilty]!.prefix, 1999);
    const again = await call(svc.url, 'POST', '/v1/attestations', {
      key: keys[guilty]!.key,
      body: { type: 'human', contentHash: hashes[guilty], contentType: 'text/plain' },
    });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
  }, 120_000);

  it('a free key: 20 a month, then QUOTA_EXCEEDED naming the tier; off-chain creates still work', async () => {
    const { key, prefix } = await svc.createKey('free');
    await svc.chargeQuota(prefix, 20);
    const res = await call(svc.url, 'POST', '/v1/attestations', { key, body: body() });
    expect(res).toMatchObject({
      status: 429,
      body: {
        code: 'QUOTA_EXCEEDED',
        message: expect.stringContaining('free tier'),
        details: { tier: 'free', kind: 'onchain', used: 20, limit: 20 },
      },
    });
    expect(res.body.details.resetsAt).toBe(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1));
    expect(
      (await call(svc.url, 'POST', '/v1/attestations', { key, body: { ...body(), mode: 'offchain' } })).status,
    ).toBe(201);
  });
});

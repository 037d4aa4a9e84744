import { createHash, randomUUID } from 'node:crypto';
import { createPublicClient, http, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attestedUids } from '../../src/attestations/relay-work.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.stop());

const sha = (text: string) => `0x${createHash('sha256').update(text).digest('hex')}`;
const item = (mode: 'onchain' | 'offchain', i: number) => ({
  type: i % 2 ? 'ai' : 'human',
  content: `batch item ${i} ${Math.random()}`,
  contentType: 'text/plain',
  mode,
});

describe('POST /v1/attestations/batch', () => {
  it('100 on-chain items are ONE transaction: one txHash, 100 Attested logs, 100 distinct uids in request order', async () => {
    const { key } = await svc.createKey('enterprise');
    const items = Array.from({ length: 100 }, (_, i) => item('onchain', i));
    const res = await call(svc.url, 'POST', '/v1/attestations/batch', { key, body: { attestations: items } });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
    expect(res.body.attestations).toHaveLength(100);
    expect(new Set(res.body.attestations.map((a: { txHash: string }) => a.txHash))).toEqual(new Set([res.body.txHash]));
    const uids = res.body.attestations.map((a: { uid: string }) => a.uid);
    expect(new Set(uids).size).toBe(100);

    const client = createPublicClient({ transport: http(svc.chain.rpcUrl) });
    const receipt = await client.getTransactionReceipt({ hash: res.body.txHash as Hex });
    expect(attestedUids(receipt, svc.chain.eas as Hex)).toEqual(uids);
    // each uid holds its own item's content hash, so the order is the request's
    for (const i of [0, 37, 99]) {
      const record = (await call(svc.url, 'GET', `/v1/attestations/${uids[i]}`)).body;
      expect(record.contentHash).toBe(sha(items[i]!.content));
    }
  }, 120_000);

  it('mixes on-chain and off-chain items and answers in request order', async () => {
    const { key } = await svc.createKey('pro');
    const items = [item('offchain', 0), item('onchain', 1), item('offchain', 2), item('onchain', 3)];
    const res = await call(svc.url, 'POST', '/v1/attestations/batch', { key, body: { attestations: items } });
    expect(res.status).toBe(201);
    expect(res.body.attestations.map((a: { mode: string }) => a.mode)).toEqual([
      'offchain',
      'onchain',
      'offchain',
      'onchain',
    ]);
    expect(res.body.attestations[0]).toMatchObject({ txHash: null, offchain: expect.any(Object) });
    expect(res.body.attestations[1].txHash).toBe(res.body.txHash);
    for (const [i, a] of res.body.attestations.entries()) {
      expect((await call(svc.url, 'GET', `/v1/attestations/${a.uid}`)).body.contentHash).toBe(sha(items[i]!.content));
    }
  }, 60_000);

  it('validates all or nothing: one bad item is a 400 naming its index, and nothing is created', async () => {
    const { key } = await svc.createKey('pro');
    const good = item('offchain', 0);
    const res = await call(svc.url, 'POST', '/v1/attestations/batch', {
      key,
      body: { attestations: [good, item('offchain', 1), { ...item('offchain', 2), type: 'robot' }] },
    });
    expect(res).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(res.body.details.errors[0].path).toBe('attestations.2.type');
    expect((await call(svc.url, 'GET', `/v1/attestations?hash=${sha(good.content)}`)).body.data).toEqual([]);
  });

  it.each([
    ['no items', []],
    ['101 items', Array.from({ length: 101 }, (_, i) => item('offchain', i))],
  ])('refuses %s with 400', async (_, attestations) => {
    const { key } = await svc.createKey('pro');
    expect((await call(svc.url, 'POST', '/v1/attestations/batch', { key, body: { attestations } })).body.code).toBe(
      'VALIDATION_FAILED',
    );
  });

  it('needs quota for all its on-chain items or makes none of the batch', async () => {
    const { key, prefix } = await svc.createKey('free');
    await svc.chargeQuota(prefix, 15);
    const offchain = item('offchain', 0);
    const res = await call(svc.url, 'POST', '/v1/attestations/batch', {
      key,
      body: { attestations: [offchain, ...Array.from({ length: 6 }, (_, i) => item('onchain', i + 1))] },
    });
    expect(res).toMatchObject({ status: 429, body: { code: 'QUOTA_EXCEEDED', details: { used: 15, limit: 20 } } });
    expect((await call(svc.url, 'GET', `/v1/attestations?hash=${sha(offchain.content)}`)).body.data).toEqual([]);
  });

  it('replays with the same Idempotency-Key, without a second transaction', async () => {
    const { key } = await svc.createKey('pro');
    const body = { attestations: [item('onchain', 0), item('offchain', 1)] };
    const idem = randomUUID();
    const first = await call(svc.url, 'POST', '/v1/attestations/batch', {
      key,
      body,
      headers: { 'idempotency-key': idem },
    });
    const again = await call(svc.url, 'POST', '/v1/attestations/batch', {
      key,
      body,
      headers: { 'idempotency-key': idem },
    });
    expect(first.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_UID } from '@attestation-service/protocol';
import { onEas as onEasOf } from '../attesters/support.ts';
import { exportOf } from '../audit/support.ts';
import { injectInsertFault } from '../support/faults.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let receiver: Receiver | undefined;

beforeAll(async () => {
  svc = await startTestService({
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' },
  });
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await svc?.stop();
});

const offchain = async (key: string, overrides: Record<string, unknown> = {}) => {
  const res = await call(svc.url, 'POST', '/v1/attestations', {
    key,
    body: {
      type: 'ai',
      content: `promote me ${Math.random()}`,
      contentType: 'text/markdown',
      digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/compositeWithTrainedAlgorithmicMedia',
      mode: 'offchain',
      ...overrides,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.uid as string;
};
const promote = (key: string, uid: string) => call(svc.url, 'POST', `/v1/attestations/${uid}/onchain`, { key });
const record = async (uid: string) => (await call(svc.url, 'GET', `/v1/attestations/${uid}`)).body;
const onchainUsed = async (key: string) =>
  (await call(svc.url, 'GET', '/v1/usage', { key })).body.key.onchain.used as number;

const onEas = (uid: string) => onEasOf(svc, uid);

describe('POST /v1/attestations/{uid}/onchain', () => {
  it('puts an off-chain attestation on chain: same data on EAS, the records name each other, event and audit', async () => {
    const { key } = await svc.createKey('pro');
    receiver = await startReceiver();
    const hook = await call(svc.url, 'POST', '/v1/webhooks', {
      key,
      body: { url: receiver.url, events: ['attestation.promoted', 'attestation.created'] },
    });
    expect(hook.status).toBe(201);
    const uid = await offchain(key);
    await receiver.waitFor(1, 30_000); // the off-chain create's own event
    const original = await record(uid);

    const res = await promote(key, uid);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      uid: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      verifyUrl: expect.stringContaining(res.body.uid),
      mode: 'onchain',
      digitalSourceType: original.digitalSourceType,
      offchainUid: uid,
    });

    const held = await onEas(res.body.uid);
    expect(held).toMatchObject({ uid: res.body.uid, schema: SCHEMA_UID, contentHash: original.contentHash });
    expect(held.aiGenerated).toBe(true);

    expect(await record(uid)).toMatchObject({ mode: 'offchain', onchainUid: res.body.uid, offchainUid: null });
    expect(await record(res.body.uid)).toMatchObject({
      mode: 'onchain',
      offchainUid: uid,
      onchainUid: null,
      type: 'ai',
      contentHash: original.contentHash,
      contentType: 'text/markdown',
      digitalSourceType: original.digitalSourceType,
      txHash: res.body.txHash,
    });

    const events = (await receiver.waitFor(2, 30_000)).map((r) => JSON.parse(r.body));
    // a promotion is announced as one, not as a second create
    expect(events.map((e) => e.type)).toEqual(['attestation.created', 'attestation.promoted']);
    expect(events[1].data).toMatchObject({ uid: res.body.uid, offchainUid: uid, mode: 'onchain' });

    const audit = await exportOf(svc, key, '?format=json');
    expect(audit.body.filter((e: { action: string }) => e.action === 'attestation.promoted')).toEqual([
      expect.objectContaining({ resource: `attestation:${res.body.uid}` }),
    ]);
  }, 90_000);

  it('promotes once under 10 parallel calls: each answers the same on-chain attestation, charged once', async () => {
    const { key } = await svc.createKey('pro');
    const uid = await offchain(key);
    const answers = await Promise.all(Array.from({ length: 10 }, () => promote(key, uid)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.body.uid)).size).toBe(1);
    expect(await onchainUsed(key)).toBe(1);
    const rows = await svc.db.selectFrom('attestations').select('uid').where('offchainUid', '=', uid).execute();
    expect(rows).toHaveLength(1);
    // and later: the same answer again, still charged once
    expect((await promote(key, uid)).body.uid).toBe(answers[0]!.body.uid);
    expect(await onchainUsed(key)).toBe(1);
  }, 90_000);

  it("refuses another account's attestation with 403 FORBIDDEN and an unknown uid with 404", async () => {
    const owner = await svc.createKey('pro');
    const stranger = await svc.createKey('pro');
    const uid = await offchain(owner.key);
    const theirs = await promote(stranger.key, uid);
    expect(theirs.status).toBe(403);
    expect(theirs.body.code).toBe('FORBIDDEN');
    expect((await promote(owner.key, `0x${'ab'.repeat(32)}`)).body.code).toBe('NOT_FOUND');
    expect(await onchainUsed(stranger.key)).toBe(0);
    expect(await record(uid)).toMatchObject({ onchainUid: null });
  });

  it('refuses an on-chain attestation with 409 ALREADY_ONCHAIN and a revoked one with 409 ALREADY_REVOKED', async () => {
    const { key } = await svc.createKey('pro');
    const onchain = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', content: `on chain ${Math.random()}`, contentType: 'text/plain' },
    });
    const already = await promote(key, onchain.body.uid);
    expect(already.status).toBe(409);
    expect(already.body.code).toBe('ALREADY_ONCHAIN');

    const uid = await offchain(key);
    expect((await call(svc.url, 'POST', `/v1/attestations/${uid}/revoke`, { key })).status).toBe(200);
    const revoked = await promote(key, uid);
    expect(revoked.status).toBe(409);
    expect(revoked.body.code).toBe('ALREADY_REVOKED');
    expect(await onchainUsed(key)).toBe(1); // the on-chain create only
  }, 90_000);

  it('answers 429 QUOTA_EXCEEDED as a create does when the month is used up, and keeps nothing', async () => {
    const { key, prefix } = await svc.createKey('free');
    const uid = await offchain(key);
    await svc.chargeQuota(prefix, 20);
    const res = await promote(key, uid);
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { tier: 'free', kind: 'onchain', used: 20 } });
    expect(await svc.db.selectFrom('attestations').select('id').where('offchainUid', '=', uid).execute()).toHaveLength(
      0,
    );
  });
});

describe('POST /v1/attestations/onchain (batch)', () => {
  it('promotes the good members of a batch of 3 and answers the bad one its own error', async () => {
    const { key } = await svc.createKey('pro');
    const stranger = await svc.createKey('pro');
    const uids = [
      await offchain(key),
      await offchain(stranger.key),
      await offchain(key, { type: 'human', digitalSourceType: undefined }),
    ];
    const res = await call(svc.url, 'POST', '/v1/attestations/onchain', { key, body: { uids } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [first, bad, third] = res.body.results;
    expect(bad).toMatchObject({ offchainUid: uids[1], attestation: null, error: { code: 'FORBIDDEN' } });
    for (const [member, uid] of [
      [first, uids[0]],
      [third, uids[2]],
    ])
      expect(member).toMatchObject({
        offchainUid: uid,
        error: null,
        attestation: { mode: 'onchain', offchainUid: uid },
      });
    expect((await onEas(third.attestation.uid)).aiGenerated).toBe(false);
    expect(await onchainUsed(key)).toBe(2);
    expect((await record(uids[0]!)).onchainUid).toBe(first.attestation.uid);
  }, 90_000);

  it('stages a batch whole or not at all: a fault in one member answers 500, charges and stages nothing', async () => {
    const { key } = await svc.createKey('pro');
    const uids = [await offchain(key), await offchain(key), await offchain(key)];
    const removeFault = await injectInsertFault(svc, (await record(uids[1]!)).contentHash);
    let failed;
    try {
      failed = await call(svc.url, 'POST', '/v1/attestations/onchain', { key, body: { uids } });
    } finally {
      await removeFault();
    }
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ code: 'INTERNAL_ERROR', details: {} });
    expect(JSON.stringify(failed.body)).not.toMatch(/injected|content_hash|INSERT|attestations/i);
    expect(await onchainUsed(key)).toBe(0);
    const staged = await svc.db.selectFrom('attestations').select('id').where('offchainUid', 'in', uids).execute();
    expect(staged).toEqual([]);

    // the fault gone, the same request promotes all three, each once
    const res = await call(svc.url, 'POST', '/v1/attestations/onchain', { key, body: { uids } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.results.map((r: { error: unknown }) => r.error)).toEqual([null, null, null]);
    expect(await onchainUsed(key)).toBe(3);
  }, 90_000);

  it('refuses a uid listed twice with 400 VALIDATION_FAILED', async () => {
    const { key } = await svc.createKey('pro');
    const uid = `0x${'cd'.repeat(32)}`;
    const res = await call(svc.url, 'POST', '/v1/attestations/onchain', { key, body: { uids: [uid, uid] } });
    expect(res.status).toBe(400);
    expect(res.body.details.errors).toEqual([expect.objectContaining({ path: 'uids.1' })]);
  });
});

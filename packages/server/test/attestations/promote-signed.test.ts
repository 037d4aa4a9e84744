import { zeroHash } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  inAnHour,
  newCustomer,
  nonceOf,
  onEas,
  register,
  sha256,
  signOffchain,
  signOnchain,
} from '../attesters/support.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ env: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' } });
}, 60_000);
afterAll(() => svc?.stop());

const promote = (key: string, uid: string, delegation?: unknown) =>
  call(svc.url, 'POST', `/v1/attestations/${uid}/onchain`, { key, ...(delegation ? { body: { delegation } } : {}) });
const record = async (uid: string) => (await call(svc.url, 'GET', `/v1/attestations/${uid}`)).body;
const onchainUsed = async (key: string) =>
  (await call(svc.url, 'GET', '/v1/usage', { key })).body.key.onchain.used as number;

/** An off-chain AI claim signed by a new attester of the key's account. */
async function customerOriginal(key: string) {
  const customer = newCustomer();
  expect((await register(svc.url, key, customer)).status).toBe(201);
  const { signing } = await nonceOf(svc.url, key, customer.address);
  const contentHash = sha256(`the customer's own ${Math.random()}`);
  const time = Math.floor(Date.now() / 1000);
  const delegation = await signOffchain(customer, signing, { type: 'ai', contentHash, time });
  const created = await call(svc.url, 'POST', '/v1/attestations', {
    key,
    body: { type: 'ai', contentHash, contentType: 'text/plain', mode: 'offchain', delegation },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { customer, contentHash, uid: created.body.uid as string };
}

/** The customer's EAS delegated request for putting the original on chain, at its next nonce. */
async function signedPromotion(key: string, original: Awaited<ReturnType<typeof customerOriginal>>) {
  const { nonce, signing } = await nonceOf(svc.url, key, original.customer.address);
  const item = { type: 'ai' as const, contentHash: original.contentHash, nonce, deadline: inAnHour() };
  return signOnchain(original.customer, signing, item);
}

describe("promotion of an original the account's attester signed", () => {
  it("goes on chain by that attester's signed request, once under 6 parallel calls, charged once", async () => {
    const { key } = await svc.createKey('pro');
    const original = await customerOriginal(key);
    const delegation = await signedPromotion(key, original);

    const answers = await Promise.all(Array.from({ length: 6 }, () => promote(key, original.uid, delegation)));
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
    const uid = answers[0]!.body.uid as string;
    expect(new Set(answers.map((res) => res.body.uid))).toEqual(new Set([uid]));
    expect(answers[0]!.body).toMatchObject({ mode: 'onchain', offchainUid: original.uid });

    expect(await onEas(svc, uid)).toMatchObject({
      attester: original.customer.address,
      refUID: zeroHash,
      contentHash: original.contentHash,
      aiGenerated: true,
    });
    expect(await record(uid)).toMatchObject({
      offchainUid: original.uid,
      attester: original.customer.address,
      claimant: { kind: 'account' },
    });
    expect((await record(original.uid)).onchainUid).toBe(uid);
    expect(await onchainUsed(key)).toBe(1);
  }, 90_000);

  it('is refused without the delegation (400 naming the attester), charging nothing', async () => {
    const { key } = await svc.createKey('pro');
    const original = await customerOriginal(key);
    const res = await promote(key, original.uid);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.details.errors).toEqual([
      { path: 'delegation', message: expect.stringContaining(original.customer.address) },
    ]);
    expect(await onchainUsed(key)).toBe(0);
  });

  it("refuses another key's signature, another attester, and a delegation for the service's own claim", async () => {
    const { key } = await svc.createKey('pro');
    const original = await customerOriginal(key);
    const delegation = await signedPromotion(key, original);
    const forged = { ...delegation, signature: (await signedPromotion(key, await customerOriginal(key))).signature };
    expect((await promote(key, original.uid, forged)).body.code).toBe('INVALID_SIGNATURE');

    const other = await customerOriginal(key);
    const misnamed = await promote(key, original.uid, await signedPromotion(key, other));
    expect(misnamed.status).toBe(400);
    expect(misnamed.body.details.errors[0].path).toBe('delegation.attester');

    const own = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'ai', content: `the service's ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
    });
    const needless = await promote(key, own.body.uid, delegation);
    expect(needless.status).toBe(400);
    expect(needless.body.details.errors[0].message).toMatch(/must be absent/);
    expect(await onchainUsed(key)).toBe(0);
  });

  it("answers 403 for another account's original, whatever it is signed with", async () => {
    const { key } = await svc.createKey('pro');
    const stranger = await svc.createKey('pro');
    const original = await customerOriginal(key);
    const res = await promote(stranger.key, original.uid, await signedPromotion(key, original));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });

  it('is refused in a batch, the member told to go alone with its signature, the others promoted', async () => {
    const { key } = await svc.createKey('pro');
    const original = await customerOriginal(key);
    const res = await call(svc.url, 'POST', '/v1/attestations/onchain', { key, body: { uids: [original.uid] } });
    expect(res.status).toBe(200);
    expect(res.body.results[0].error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { errors: [{ path: 'uids.0', message: expect.stringContaining('promoteSigned') }] },
    });
  });
});

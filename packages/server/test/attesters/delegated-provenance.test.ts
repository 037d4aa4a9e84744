import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';
import {
  easSdkVerifies,
  inAnHour,
  newCustomer,
  nonceOf,
  onEas,
  register,
  sha256,
  signOffchain,
  signOnchain,
} from './support.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.stop());

async function registeredCustomer() {
  const { key } = await svc.createKey('pro');
  const customer = newCustomer();
  expect((await register(svc.url, key, customer)).status).toBe(201);
  return { key, customer, ...(await nonceOf(svc.url, key, customer.address)) };
}

/** An attestation by the service's own attester, to derive from. */
async function origin(key: string, mode: 'onchain' | 'offchain'): Promise<`0x${string}`> {
  const res = await call(svc.url, 'POST', '/v1/attestations', {
    key,
    body: { type: 'human', content: `origin ${Math.random()}`, contentType: 'text/plain', mode },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.uid;
}

const create = (key: string, body: Record<string, unknown>) =>
  call(svc.url, 'POST', '/v1/attestations', { key, body: { contentType: 'text/plain', ...body } });

describe("refUid and ai on claims the customer's attester signs", () => {
  it('puts a signed refUID on chain (single and batch), and refuses a signature that left it out', async () => {
    const { key, customer, nonce, signing } = await registeredCustomer();
    const refUid = await origin(key, 'onchain');
    const contentHash = sha256(`derived ${Math.random()}`);
    const unsigned = await signOnchain(customer, signing, { type: 'ai', contentHash, nonce, deadline: inAnHour() });
    const refused = await create(key, { type: 'ai', contentHash, refUid, delegation: unsigned });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('INVALID_SIGNATURE');

    const item = { type: 'ai' as const, contentHash, nonce, deadline: inAnHour(), refUid };
    const created = await create(key, {
      type: 'ai',
      contentHash,
      refUid,
      delegation: await signOnchain(customer, signing, item),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(await onEas(svc, created.body.uid)).toMatchObject({ attester: customer.address, refUID: refUid });
    const chain = await call(svc.url, 'GET', `/v1/attestations/${created.body.uid}/provenance`);
    expect(chain.body.links.map((link: { uid: string }) => link.uid)).toEqual([created.body.uid, refUid]);

    const hashes = [sha256(`batch a ${Math.random()}`), sha256(`batch b ${Math.random()}`)];
    const next = BigInt(nonce) + 1n;
    const attestations = await Promise.all(
      hashes.map(async (hash, i) => ({
        type: 'human',
        contentHash: hash,
        contentType: 'text/plain',
        ...(i === 0 ? { refUid } : {}),
        delegation: await signOnchain(customer, signing, {
          type: 'human',
          contentHash: hash,
          nonce: String(next + BigInt(i)),
          deadline: inAnHour(),
          ...(i === 0 ? { refUid } : {}),
        }),
      })),
    );
    const batch = await call(svc.url, 'POST', '/v1/attestations/batch', { key, body: { attestations } });
    expect(batch.status, JSON.stringify(batch.body)).toBe(201);
    const [first, second] = batch.body.attestations;
    expect((await onEas(svc, first.uid)).refUID).toBe(refUid);
    expect((await onEas(svc, second.uid)).refUID).toMatch(/^0x0{64}$/);
  }, 90_000);

  it("signs an off-chain refUID into the customer's package, as the EAS SDK verifies it", async () => {
    const { key, customer, signing } = await registeredCustomer();
    const refUid = await origin(key, 'offchain');
    const contentHash = sha256(`off-chain derived ${Math.random()}`);
    const time = Math.floor(Date.now() / 1000);
    const delegation = await signOffchain(customer, signing, { type: 'human', contentHash, time, refUid });
    const created = await create(key, { type: 'human', contentHash, mode: 'offchain', refUid, delegation });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    const record = (await call(svc.url, 'GET', `/v1/attestations/${created.body.uid}`)).body;
    expect(record.refUid).toBe(refUid);
    const { sig } = record.offchain;
    expect(sig.message.refUID).toBe(refUid);
    expect(easSdkVerifies(record.offchain, customer.address)).toBe(true);
  });

  it('keeps the model of an on-chain signed AI claim, and refuses it with an off-chain signature', async () => {
    const { key, customer, nonce, signing } = await registeredCustomer();
    const ai = { model: 'acme-diffusion-2', promptHash: sha256('a prompt') };
    const contentHash = sha256(`ai ${Math.random()}`);
    const delegation = await signOnchain(customer, signing, { type: 'ai', contentHash, nonce, deadline: inAnHour() });
    const created = await create(key, { type: 'ai', contentHash, ai, delegation });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const record = (await call(svc.url, 'GET', `/v1/attestations/${created.body.uid}`)).body;
    expect(record.ai).toMatchObject({ model: ai.model, promptHash: ai.promptHash, offchain: null });

    const time = Math.floor(Date.now() / 1000);
    const signed = await signOffchain(customer, signing, { type: 'ai', contentHash, time });
    const refused = await create(key, { type: 'ai', contentHash, mode: 'offchain', ai, delegation: signed });
    expect(refused.status).toBe(400);
    expect(refused.body.details.errors).toEqual([
      { path: 'ai', message: expect.stringContaining('off-chain delegation') },
    ]);
  });
});

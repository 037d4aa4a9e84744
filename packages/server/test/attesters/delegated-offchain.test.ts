import { Offchain, OffchainAttestationVersion } from '@ethereum-attestation-service/eas-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';
import { easSdkVerifies, newCustomer, nonceOf, register, sha256, signOffchain } from './support.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
});
afterAll(() => svc?.stop());

async function registeredCustomer() {
  const { key, account } = await svc.createKey('free');
  const customer = newCustomer();
  expect((await register(svc.url, key, customer)).status).toBe(201);
  const { signing } = await nonceOf(svc.url, key, customer.address);
  return { key, account, customer, signing };
}

const now = () => Math.floor(Date.now() / 1000);

describe('delegated off-chain attestations', () => {
  it("stores the customer's own signed package, which the EAS SDK verifies as the customer's", async () => {
    const { key, account, customer, signing } = await registeredCustomer();
    const contentHash = sha256('signed off-chain by the customer');
    const delegation = await signOffchain(customer, signing, { type: 'ai', contentHash, time: now() });
    const created = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'ai', contentHash, contentType: 'text/plain', mode: 'offchain', delegation },
    });
    expect(created.status).toBe(201);
    expect(created.body.offchain.signer).toBe(customer.address);

    const record = (await call(svc.url, 'GET', `/v1/attestations/${created.body.uid}`)).body;
    expect(record.attester).toBe(customer.address);
    expect(record.claimant).toEqual({ kind: 'account', address: customer.address, accountName: account, domain: null });
    const { message } = record.offchain.sig;
    expect(easSdkVerifies(record.offchain, customer.address)).toBe(true);
    const uid = Offchain.getOffchainUID(
      OffchainAttestationVersion.Version2,
      message.schema,
      message.recipient,
      BigInt(message.time),
      BigInt(message.expirationTime),
      message.revocable,
      message.refUID,
      message.data,
      message.salt,
    );
    expect(uid).toBe(record.uid);
  });

  it('refuses the same signed package twice with 409 ALREADY_EXISTS', async () => {
    const { key, customer, signing } = await registeredCustomer();
    const contentHash = sha256('only once');
    const delegation = await signOffchain(customer, signing, { type: 'human', contentHash, time: now() });
    const body = { type: 'human', contentHash, contentType: 'text/plain', mode: 'offchain', delegation };
    const first = await call(svc.url, 'POST', '/v1/attestations', { key, body });
    expect(first.status).toBe(201);
    const again = await call(svc.url, 'POST', '/v1/attestations', { key, body });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'ALREADY_EXISTS', details: { id: first.body.uid } });
  });

  it('refuses a package signed long ago with 400 DELEGATION_EXPIRED', async () => {
    const { key, customer, signing } = await registeredCustomer();
    const contentHash = sha256('stale');
    const delegation = await signOffchain(customer, signing, { type: 'human', contentHash, time: now() - 3600 });
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', contentHash, contentType: 'text/plain', mode: 'offchain', delegation },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'DELEGATION_EXPIRED', details: { path: 'delegation' } });
  });

  it('refuses an unregistered signer (403) and a forged signature (400)', async () => {
    const { key, customer, signing } = await registeredCustomer();
    const contentHash = sha256('who signed?');
    const stranger = newCustomer();
    const unregistered = await signOffchain(stranger, signing, { type: 'human', contentHash, time: now() });
    const body = { type: 'human', contentHash, contentType: 'text/plain', mode: 'offchain' };
    const refused = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { ...body, delegation: unregistered },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('ATTESTER_NOT_REGISTERED');
    const forged = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { ...body, delegation: { ...unregistered, attester: customer.address } },
    });
    expect(forged.status).toBe(400);
    expect(forged.body.code).toBe('INVALID_SIGNATURE');
  });

  it('takes signed off-chain items in a batch, and refuses the whole batch when one is not registered', async () => {
    const { key, customer, signing } = await registeredCustomer();
    const item = async (text: string, signer = customer) => {
      const contentHash = sha256(text);
      return {
        type: 'human',
        contentHash,
        contentType: 'text/plain',
        mode: 'offchain',
        delegation: await signOffchain(signer, signing, { type: 'human', contentHash, time: now() }),
      };
    };
    const ok = await call(svc.url, 'POST', '/v1/attestations/batch', {
      key,
      body: { attestations: [await item('a'), await item('b')] },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.attestations.map((a: any) => a.offchain.signer)).toEqual([customer.address, customer.address]);
    const mixed = await call(svc.url, 'POST', '/v1/attestations/batch', {
      key,
      body: { attestations: [await item('c'), await item('d', newCustomer())] },
    });
    expect(mixed.status).toBe(403);
    expect(mixed.body.details.path).toBe('attestations.1.delegation.attester');
  });

  it('says which fields a delegation needs in its mode (400 VALIDATION_FAILED)', async () => {
    const { key, customer } = await registeredCustomer();
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: {
        type: 'human',
        content: 'x',
        contentType: 'text/plain',
        mode: 'offchain',
        delegation: { attester: customer.address, signature: `0x${'11'.repeat(65)}`, nonce: '0' },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'delegation.nonce',
      'delegation.salt',
      'delegation.time',
    ]);
  });
});

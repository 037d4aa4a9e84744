import { EAS } from '@ethereum-attestation-service/eas-sdk';
import { JsonRpcProvider } from 'ethers';
import { inject } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';
import { inAnHour, newCustomer, nonceOf, register, sha256, signOnchain } from './support.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.stop());

/** The attestation as the EAS SDK reads it from the chain. */
async function onChain(uid: string) {
  const chain = inject('chain');
  const eas = new EAS(chain.eas);
  eas.connect(new JsonRpcProvider(chain.rpcUrl, undefined, { staticNetwork: true }) as never);
  return eas.getAttestation(uid);
}

async function registeredCustomer() {
  const { key, account } = await svc.createKey('free');
  const customer = newCustomer();
  expect((await register(svc.url, key, customer)).status).toBe(201);
  return { key, account, customer };
}

describe('delegated on-chain attestations (attestByDelegation)', () => {
  it("is on chain with the customer's address as attester, and its record names the account", async () => {
    const { key, account, customer } = await registeredCustomer();
    const { nonce, signing } = await nonceOf(svc.url, key, customer.address);
    const contentHash = sha256('signed by ACME itself');
    const delegation = await signOnchain(customer, signing, {
      type: 'human',
      contentHash,
      nonce,
      deadline: inAnHour(),
    });

    const created = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', contentHash, contentType: 'text/plain', delegation },
    });
    expect(created.status).toBe(201);
    expect(created.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);

    const attestation = await onChain(created.body.uid);
    expect(attestation.attester).toBe(customer.address);
    expect(attestation.schema).toBe(signing.schemaUid);

    const record = await call(svc.url, 'GET', `/v1/attestations/${created.body.uid}`);
    expect(record.body.attester).toBe(customer.address);
    expect(record.body.claimant).toEqual({
      kind: 'account',
      address: customer.address,
      accountName: account,
      domain: null,
    });
    expect((await nonceOf(svc.url, key, customer.address)).nonce).toBe('1');
  });

  it('refuses a replayed request with 409 INVALID_NONCE, and charges nothing for it', async () => {
    const { key, customer } = await registeredCustomer();
    const { nonce, signing } = await nonceOf(svc.url, key, customer.address);
    const contentHash = sha256('replayed');
    const delegation = await signOnchain(customer, signing, { type: 'ai', contentHash, nonce, deadline: inAnHour() });
    const body = { type: 'ai', contentHash, contentType: 'text/plain', delegation };
    expect((await call(svc.url, 'POST', '/v1/attestations', { key, body })).status).toBe(201);
    const replay = await call(svc.url, 'POST', '/v1/attestations', { key, body });
    expect(replay.status).toBe(409);
    expect(replay.body).toMatchObject({
      code: 'INVALID_NONCE',
      details: { attester: customer.address, expected: '1', given: '0' },
    });
  });

  it('refuses an expired deadline with 400 DELEGATION_EXPIRED', async () => {
    const { key, customer } = await registeredCustomer();
    const { nonce, signing } = await nonceOf(svc.url, key, customer.address);
    const contentHash = sha256('too late');
    const deadline = String(Math.floor(Date.now() / 1000) - 1);
    const delegation = await signOnchain(customer, signing, { type: 'human', contentHash, nonce, deadline });
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', contentHash, contentType: 'text/plain', delegation },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'DELEGATION_EXPIRED', details: { path: 'delegation.deadline' } });
  });

  it('refuses an unregistered address with 403 ATTESTER_NOT_REGISTERED', async () => {
    const { key, customer } = await registeredCustomer();
    const { signing } = await nonceOf(svc.url, key, customer.address);
    const stranger = newCustomer();
    const contentHash = sha256('nobody registered me');
    const delegation = await signOnchain(stranger, signing, { type: 'human', contentHash, nonce: '0', deadline: '0' });
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', contentHash, contentType: 'text/plain', delegation },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'ATTESTER_NOT_REGISTERED', details: { attester: stranger.address } });
  });

  it("refuses another account's registered address with 403 ATTESTER_NOT_REGISTERED", async () => {
    const owner = await registeredCustomer();
    const { key: strangerKey } = await svc.createKey('free');
    const { nonce, signing } = await nonceOf(svc.url, owner.key, owner.customer.address);
    const contentHash = sha256('not yours');
    const delegation = await signOnchain(owner.customer, signing, { type: 'human', contentHash, nonce, deadline: '0' });
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key: strangerKey,
      body: { type: 'human', contentHash, contentType: 'text/plain', delegation },
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('ATTESTER_NOT_REGISTERED');
  });

  it('refuses a signature by another key, or over other content, with 400 INVALID_SIGNATURE', async () => {
    const { key, customer } = await registeredCustomer();
    const { nonce, signing } = await nonceOf(svc.url, key, customer.address);
    const contentHash = sha256('what was signed');
    const forged = await signOnchain(newCustomer(), signing, { type: 'human', contentHash, nonce, deadline: '0' });
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: {
        type: 'human',
        contentHash,
        contentType: 'text/plain',
        delegation: { ...forged, attester: customer.address },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_SIGNATURE');
    const genuine = await signOnchain(customer, signing, { type: 'human', contentHash, nonce, deadline: '0' });
    const swapped = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'ai', contentHash, contentType: 'text/plain', delegation: genuine },
    });
    expect(swapped.body.code).toBe('INVALID_SIGNATURE');
  });

  it('puts a batch of signed requests in ONE multiAttestByDelegation, in request order', async () => {
    const { key, customer } = await registeredCustomer();
    const { nonce, signing } = await nonceOf(svc.url, key, customer.address);
    const deadline = inAnHour();
    const items = await Promise.all(
      // twelve: ids past 9 would sort wrongly as text, and a nonce out of order voids the whole transaction
      Array.from({ length: 12 }, (_, i) => `item ${i} ${Math.random()}`).map(async (text, i) => {
        const contentHash = sha256(text);
        const type = i === 1 ? 'ai' : 'human';
        const delegation = await signOnchain(customer, signing, {
          type,
          contentHash,
          nonce: String(BigInt(nonce) + BigInt(i)),
          deadline,
        });
        return { type, contentHash, contentType: 'text/plain', delegation };
      }),
    );
    const offchain = {
      type: 'human',
      content: 'the service signs this one',
      contentType: 'text/plain',
      mode: 'offchain',
    };
    const res = await call(svc.url, 'POST', '/v1/attestations/batch', {
      key,
      body: { attestations: [...items, offchain] },
    });
    expect(res.status).toBe(201);
    const onchainItems = res.body.attestations.filter((a: { mode: string }) => a.mode === 'onchain');
    expect(new Set(onchainItems.map((a: { txHash: string }) => a.txHash))).toEqual(new Set([res.body.txHash]));
    for (const [i, item] of onchainItems.entries()) {
      const attestation = await onChain(item.uid);
      expect(attestation.attester).toBe(customer.address);
      const record = await call(svc.url, 'GET', `/v1/attestations/${item.uid}`);
      expect(record.body.contentHash).toBe(items[i]!.contentHash);
      expect(record.body.type).toBe(items[i]!.type);
    }
    const serviceItem = await call(svc.url, 'GET', `/v1/attestations/${res.body.attestations[12].uid}`);
    expect(serviceItem.body.claimant).toMatchObject({ kind: 'service', accountName: null });
  });

  it("refuses a batch that mixes the customer's requests with the service's own on-chain items (400)", async () => {
    const { key, customer } = await registeredCustomer();
    const { nonce, signing } = await nonceOf(svc.url, key, customer.address);
    const contentHash = sha256('mixed');
    const delegation = await signOnchain(customer, signing, { type: 'human', contentHash, nonce, deadline: '0' });
    const res = await call(svc.url, 'POST', '/v1/attestations/batch', {
      key,
      body: {
        attestations: [
          { type: 'human', contentHash, contentType: 'text/plain', delegation },
          { type: 'human', content: 'relayer item', contentType: 'text/plain' },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.errors[0].path).toBe('attestations.1.delegation');
  });

  it("cannot be revoked by the relayer: 403 names the customer's address", async () => {
    const { key, customer } = await registeredCustomer();
    const { nonce, signing } = await nonceOf(svc.url, key, customer.address);
    const contentHash = sha256('mine to revoke');
    const delegation = await signOnchain(customer, signing, { type: 'human', contentHash, nonce, deadline: '0' });
    const created = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', contentHash, contentType: 'text/plain', delegation },
    });
    const revoked = await call(svc.url, 'POST', `/v1/attestations/${created.body.uid}/revoke`, { key });
    expect(revoked.status).toBe(403);
    expect(revoked.body.message).toContain(customer.address);
  });

  it('keeps attestations made the current way unchanged: the service is their claimant', async () => {
    const { key } = await svc.createKey('free');
    const created = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', content: 'the service attests this', contentType: 'text/plain' },
    });
    expect(created.status).toBe(201);
    const record = await call(svc.url, 'GET', `/v1/attestations/${created.body.uid}`);
    expect(record.body.claimant).toEqual({
      kind: 'service',
      address: record.body.attester,
      accountName: null,
      domain: null,
    });
    expect((await onChain(created.body.uid)).attester).toBe(record.body.attester);
  });
});

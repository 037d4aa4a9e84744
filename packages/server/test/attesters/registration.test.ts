import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';
import { newCustomer, register } from './support.ts';

let svc: TestService;
let offsetMs = 0;

beforeAll(async () => {
  svc = await startTestService({ worker: false, clock: { now: () => Date.now() + offsetMs } });
});
afterAll(() => svc?.stop());

async function auditActions(key: string): Promise<Array<{ action: string; resource: string }>> {
  const res = await fetch(`${svc.url}/v1/audit/export?format=json`, { headers: { authorization: `Bearer ${key}` } });
  const entries = (await res.json()) as Array<{ action: string; resource: string }>;
  return entries.filter((e) => e.action.startsWith('attester.'));
}

describe('registering a customer attester', () => {
  it('registers an address by its signed challenge, lists it, audits it and removes it', async () => {
    const { key } = await svc.createKey('free');
    const customer = newCustomer();

    const challenge = await call(svc.url, 'POST', '/v1/attesters/challenges', {
      key,
      body: { address: customer.address.toLowerCase() },
    });
    expect(challenge.status).toBe(201);
    expect(challenge.body.address).toBe(customer.address);
    expect(challenge.body.message).toContain(customer.address);
    expect(challenge.body.message).toContain(challenge.body.id);

    const signature = await customer.signMessage({ message: challenge.body.message });
    const registered = await call(svc.url, 'POST', '/v1/attesters', {
      key,
      body: { challengeId: challenge.body.id, signature },
    });
    expect(registered.status).toBe(201);
    expect(registered.body).toEqual({ address: customer.address, createdAt: expect.any(String) });

    const listed = await call(svc.url, 'GET', '/v1/attesters', { key });
    expect(listed.body.data).toEqual([registered.body]);

    const nonce = await call(svc.url, 'GET', `/v1/attesters/${customer.address}/nonce`, { key });
    expect(nonce.status).toBe(200);
    expect(nonce.body.nonce).toBe('0');

    const removed = await call(svc.url, 'DELETE', `/v1/attesters/${customer.address}`, { key });
    expect(removed.status).toBe(204);
    expect((await call(svc.url, 'GET', '/v1/attesters', { key })).body.data).toEqual([]);
    expect(await auditActions(key)).toEqual([
      expect.objectContaining({ action: 'attester.registered', resource: `attester:${customer.address}` }),
      expect.objectContaining({ action: 'attester.removed', resource: `attester:${customer.address}` }),
    ]);
  });

  it('uses a challenge once: a second registration with it is 400 CHALLENGE_INVALID', async () => {
    const { key } = await svc.createKey('free');
    const customer = newCustomer();
    const challenge = await call(svc.url, 'POST', '/v1/attesters/challenges', {
      key,
      body: { address: customer.address },
    });
    const signature = await customer.signMessage({ message: challenge.body.message });
    const body = { challengeId: challenge.body.id, signature };
    expect((await call(svc.url, 'POST', '/v1/attesters', { key, body })).status).toBe(201);
    const again = await call(svc.url, 'POST', '/v1/attesters', { key, body });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('CHALLENGE_INVALID');
  });

  it('refuses a challenge signed by another key with 400 INVALID_SIGNATURE, and uses it up', async () => {
    const { key } = await svc.createKey('free');
    const customer = newCustomer();
    const challenge = await call(svc.url, 'POST', '/v1/attesters/challenges', {
      key,
      body: { address: customer.address },
    });
    const forged = await newCustomer().signMessage({ message: challenge.body.message });
    const res = await call(svc.url, 'POST', '/v1/attesters', {
      key,
      body: { challengeId: challenge.body.id, signature: forged },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_SIGNATURE', details: {} });
    expect(res.body.message).toContain(customer.address);
    const genuine = await customer.signMessage({ message: challenge.body.message });
    const retry = await call(svc.url, 'POST', '/v1/attesters', {
      key,
      body: { challengeId: challenge.body.id, signature: genuine },
    });
    expect(retry.body.code).toBe('CHALLENGE_INVALID');
    expect((await call(svc.url, 'GET', '/v1/attesters', { key })).body.data).toEqual([]);
  });

  it('refuses an expired challenge with 400 CHALLENGE_INVALID', async () => {
    const { key } = await svc.createKey('free');
    const customer = newCustomer();
    const challenge = await call(svc.url, 'POST', '/v1/attesters/challenges', {
      key,
      body: { address: customer.address },
    });
    const signature = await customer.signMessage({ message: challenge.body.message });
    offsetMs = 11 * 60 * 1000;
    try {
      const res = await call(svc.url, 'POST', '/v1/attesters', {
        key,
        body: { challengeId: challenge.body.id, signature },
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('CHALLENGE_INVALID');
    } finally {
      offsetMs = 0;
    }
  });

  it('gives an address to one account at most: another account is refused with 409 ATTESTER_TAKEN', async () => {
    const first = await svc.createKey('free');
    const second = await svc.createKey('free');
    const customer = newCustomer();
    expect((await register(svc.url, first.key, customer)).status).toBe(201);
    const challenge = await call(svc.url, 'POST', '/v1/attesters/challenges', {
      key: second.key,
      body: { address: customer.address },
    });
    expect(challenge.status).toBe(409);
    expect(challenge.body.code).toBe('ATTESTER_TAKEN');
  });

  it('keeps accounts apart: another account can neither see, read the nonce of, nor remove an address', async () => {
    const owner = await svc.createKey('free');
    const stranger = await svc.createKey('free');
    const customer = newCustomer();
    await register(svc.url, owner.key, customer);
    expect((await call(svc.url, 'GET', '/v1/attesters', { key: stranger.key })).body.data).toEqual([]);
    const nonce = await call(svc.url, 'GET', `/v1/attesters/${customer.address}/nonce`, { key: stranger.key });
    expect(nonce.status).toBe(404);
    const removed = await call(svc.url, 'DELETE', `/v1/attesters/${customer.address}`, { key: stranger.key });
    expect(removed.status).toBe(404);
    expect((await call(svc.url, 'GET', '/v1/attesters', { key: owner.key })).body.data).toHaveLength(1);
  });

  it("refuses to use another account's challenge", async () => {
    const owner = await svc.createKey('free');
    const stranger = await svc.createKey('free');
    const customer = newCustomer();
    const challenge = await call(svc.url, 'POST', '/v1/attesters/challenges', {
      key: owner.key,
      body: { address: customer.address },
    });
    const signature = await customer.signMessage({ message: challenge.body.message });
    const res = await call(svc.url, 'POST', '/v1/attesters', {
      key: stranger.key,
      body: { challengeId: challenge.body.id, signature },
    });
    expect(res.body.code).toBe('CHALLENGE_INVALID');
  });

  it('needs a key, and validates the address', async () => {
    expect((await call(svc.url, 'GET', '/v1/attesters')).status).toBe(401);
    const { key } = await svc.createKey('free');
    const bad = await call(svc.url, 'POST', '/v1/attesters/challenges', { key, body: { address: '0x1234' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.errors[0].path).toBe('address');
  });
});

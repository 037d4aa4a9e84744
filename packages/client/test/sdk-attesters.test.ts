import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCustomer } from '../../server/test/attesters/support.ts';
import { startTestService, type TestService } from '../../server/test/support/service.ts';
import { AttestationServiceError, createClient, signDelegation } from '../src/index.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.stop());

async function clientOfNewAccount() {
  const { key, account } = await svc.createKey('pro');
  return { client: createClient({ baseUrl: svc.url, apiKey: key }), account };
}

async function caught(promise: Promise<unknown>): Promise<AttestationServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AttestationServiceError);
  return error as AttestationServiceError;
}

describe('SDK: customer attesters', () => {
  it('registers a viem account and signs on-chain and off-chain attestations with it', async () => {
    const { client, account } = await clientOfNewAccount();
    const signer = newCustomer();
    expect(await client.attesters.register(signer)).toMatchObject({ address: signer.address });
    expect((await client.attesters.list()).data.map((a) => a.address)).toEqual([signer.address]);

    const onchain = await client.attestations.createSigned(signer, {
      type: 'human',
      content: `sdk signed ${Math.random()}`,
      contentType: 'text/plain',
    });
    expect(onchain.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const record = await client.attestations.get(onchain.uid);
    expect(record.claimant).toEqual({ kind: 'account', address: signer.address, accountName: account, domain: null });

    const offchain = await client.attestations.createSigned(signer, {
      type: 'ai',
      content: `sdk signed off-chain ${Math.random()}`,
      contentType: 'text/plain',
      mode: 'offchain',
    });
    expect(offchain.offchain?.signer).toBe(signer.address);
    expect((await client.attestations.get(offchain.uid)).attester).toBe(signer.address);
  }, 60_000);

  it('signs a batch with consecutive nonces: one transaction, every item the customer\u2019s', async () => {
    const { client } = await clientOfNewAccount();
    const signer = newCustomer();
    await client.attesters.register(signer);
    const batch = await client.attestations.batchSigned(signer, [
      { type: 'human', content: `a ${Math.random()}`, contentType: 'text/plain' },
      { type: 'ai', content: `b ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
      { type: 'ai', content: `c ${Math.random()}`, contentType: 'text/plain' },
    ]);
    const onchain = batch.attestations.filter((a) => a.mode === 'onchain');
    expect(onchain).toHaveLength(2);
    expect(onchain.every((a) => a.txHash === batch.txHash)).toBe(true);
    for (const item of batch.attestations)
      expect((await client.attestations.get(item.uid)).claimant.address).toBe(signer.address);
    expect((await client.attesters.nonce(signer.address)).nonce).toBe('2');
  }, 60_000);

  it('surfaces refusals as typed errors: a replay, an unregistered signer, a removed one', async () => {
    const { client } = await clientOfNewAccount();
    const signer = newCustomer();
    await client.attesters.register(signer);
    const next = await client.attesters.nonce(signer.address);
    const signed = await signDelegation(signer, next, {
      type: 'human',
      content: `replayed ${Math.random()}`,
      contentType: 'text/plain',
    });
    await client.attestations.create(signed);
    const replay = await caught(client.attestations.create(signed));
    expect(replay.code).toBe('INVALID_NONCE');
    if (replay.is('INVALID_NONCE')) expect(replay.details.expected).toBe('1');

    const stranger = newCustomer();
    const unregistered = await caught(
      client.attestations.create(
        await signDelegation(stranger, next, { type: 'human', content: 'x', contentType: 'text/plain' }),
      ),
    );
    expect(unregistered.code).toBe('ATTESTER_NOT_REGISTERED');
    expect(unregistered.status).toBe(403);

    const later = await signDelegation(signer, await client.attesters.nonce(signer.address), {
      type: 'human',
      content: 'signed before removal',
      contentType: 'text/plain',
    });
    await client.attesters.remove(signer.address);
    const removed = await caught(client.attestations.create(later));
    expect(removed.code).toBe('ATTESTER_NOT_REGISTERED');
    expect((await caught(client.attesters.nonce(signer.address))).code).toBe('NOT_FOUND');
  }, 60_000);
});

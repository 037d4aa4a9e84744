import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCustomer } from '../../server/test/attesters/support.ts';
import { startTestService, type TestService } from '../../server/test/support/service.ts';
import { AttestationServiceError, createClient } from '../src/index.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.stop());

describe('SDK: promotion', () => {
  it('promotes an off-chain attestation, answers the same again, and promotes many with errors per member', async () => {
    const { key } = await svc.createKey('pro');
    const client = createClient({ baseUrl: svc.url, apiKey: key });
    const offchain = () =>
      client.attestations.create({
        type: 'human',
        content: `sdk promote ${Math.random()}`,
        contentType: 'text/plain',
        mode: 'offchain',
      });
    const original = await offchain();
    const promoted = await client.attestations.promote(original.uid);
    expect(promoted).toMatchObject({ mode: 'onchain', offchainUid: original.uid, txHash: expect.any(String) });
    expect(await client.attestations.promote(original.uid)).toEqual(promoted);
    expect((await client.attestations.get(original.uid)).onchainUid).toBe(promoted.uid);
    expect((await client.attestations.get(promoted.uid)).offchainUid).toBe(original.uid);

    const error = await client.attestations.promote(promoted.uid).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AttestationServiceError);
    expect((error as AttestationServiceError).code).toBe('ALREADY_ONCHAIN');

    const other = await offchain();
    const many = await client.attestations.promoteMany([other.uid, promoted.uid]);
    expect(many.results[0]).toMatchObject({ offchainUid: other.uid, error: null, attestation: { mode: 'onchain' } });
    expect(many.results[1]).toMatchObject({ attestation: null, error: { code: 'ALREADY_ONCHAIN' } });
  }, 90_000);

  it("promotes what the account's attester signed with that attester's request, signing refUid too", async () => {
    const { key } = await svc.createKey('pro');
    const client = createClient({ baseUrl: svc.url, apiKey: key });
    const signer = newCustomer();
    await client.attesters.register(signer);
    const input = { type: 'ai', content: `sdk signed ${Math.random()}`, contentType: 'text/plain' } as const;
    const origin = await client.attestations.createSigned(signer, input);
    const derived = await client.attestations.createSigned(signer, {
      ...input,
      content: `a revision ${Math.random()}`,
      mode: 'offchain',
      refUid: origin.uid,
    });
    expect((await client.attestations.get(derived.uid)).refUid).toBe(origin.uid);

    const refused = await client.attestations.promote(derived.uid).catch((e: unknown) => e);
    expect((refused as AttestationServiceError).code).toBe('VALIDATION_FAILED');
    const promoted = await client.attestations.promoteSigned(signer, derived.uid);
    expect(promoted).toMatchObject({ mode: 'onchain', offchainUid: derived.uid });
    expect((await client.attestations.get(promoted.uid)).attester).toBe(signer.address);
    expect(await client.attestations.promoteSigned(signer, derived.uid)).toEqual(promoted);
  }, 90_000);
});

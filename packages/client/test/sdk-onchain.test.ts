import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../server/test/support/service.ts';
import { AttestationServiceError, createClient } from '../src/index.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.stop());

describe('SDK: on-chain, batch, revoke, quota', () => {
  it('creates on-chain, batches, and revokes', async () => {
    const { key } = await svc.createKey('pro');
    const client = createClient({ baseUrl: svc.url, apiKey: key });
    const single = await client.attestations.create({
      type: 'human',
      content: `sdk on-chain ${Math.random()}`,
      contentType: 'text/plain',
    });
    expect(single).toMatchObject({ mode: 'onchain', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });

    const batch = await client.attestations.batch({
      attestations: [
        { type: 'ai', content: `sdk batch a ${Math.random()}`, contentType: 'text/plain' },
        { type: 'human', content: `sdk batch b ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
      ],
    });
    expect(batch.attestations.map((a) => a.mode)).toEqual(['onchain', 'offchain']);
    expect(batch.txHash).toBe(batch.attestations[0]!.txHash);

    const revoked = await client.attestations.revoke(single.uid, { reason: 'test' });
    expect(revoked).toMatchObject({ uid: single.uid, revoked: true });
    expect((await client.attestations.get(single.uid)).revoked).toBe(true);
  }, 60_000);

  it('surfaces 429 QUOTA_EXCEEDED with typed details, and does not retry it', async () => {
    const { key, prefix } = await svc.createKey('free');
    await svc.chargeQuota(prefix, 20);
    const client = createClient({ baseUrl: svc.url, apiKey: key });
    const error = await client.attestations
      .create({ type: 'human', content: 'over quota', contentType: 'text/plain' })
      .then(
        () => undefined,
        (e: unknown) => e as AttestationServiceError,
      );
    expect(error).toBeInstanceOf(AttestationServiceError);
    expect(error!.is('QUOTA_EXCEEDED') && error!.details).toEqual({
      tier: 'free',
      kind: 'onchain',
      used: 20,
      limit: 20,
      resetsAt: expect.any(Number),
      scope: 'key',
    });
    expect(error!.status).toBe(429);
  });
});

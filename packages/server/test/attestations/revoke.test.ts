import { EAS } from '@ethereum-attestation-service/eas-sdk';
import { JsonRpcProvider } from 'ethers';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let provider: JsonRpcProvider;
let eas: EAS;

beforeAll(async () => {
  svc = await startTestService();
  provider = new JsonRpcProvider(svc.chain.rpcUrl, undefined, { staticNetwork: true });
  eas = new EAS(svc.chain.eas);
  eas.connect(provider as never);
});
afterAll(async () => {
  provider?.destroy();
  await svc?.stop();
});

const create = async (key: string, mode: 'onchain' | 'offchain') =>
  (
    await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', content: `revoke me ${Math.random()}`, contentType: 'text/plain', mode },
    })
  ).body;

describe('POST /v1/attestations/:uid/revoke', () => {
  it('revokes an on-chain attestation with EAS.revoke: the EAS SDK sees revocationTime > 0, the record shows it', async () => {
    const { key } = await svc.createKey('pro');
    const { uid } = await create(key, 'onchain');
    const res = await call(svc.url, 'POST', `/v1/attestations/${uid}/revoke`, {
      key,
      body: { reason: 'published by mistake' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      uid,
      revoked: true,
      revokedAt: expect.any(String),
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect((await eas.getAttestation(uid)).revocationTime).toBeGreaterThan(0n);
    const record = (await call(svc.url, 'GET', `/v1/attestations/${uid}`)).body;
    expect(record).toMatchObject({ revoked: true, revokedAt: res.body.revokedAt, revocationTxHash: res.body.txHash });
  }, 60_000);

  it('revokes an off-chain attestation with EAS.revokeOffchain from the attester: getRevokeOffchain is non-zero', async () => {
    const { key } = await svc.createKey('pro');
    const created = await create(key, 'offchain');
    const res = await call(svc.url, 'POST', `/v1/attestations/${created.uid}/revoke`, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await eas.getRevocationOffchain(created.offchain.signer, created.uid)).toBeGreaterThan(0n);
    expect((await call(svc.url, 'GET', `/v1/attestations/${created.uid}`)).body.revoked).toBe(true);
  }, 60_000);

  it('answers 409 ALREADY_REVOKED the second time, 404 for an unknown uid, 403 FORBIDDEN for another account', async () => {
    const owner = await svc.createKey('pro');
    const stranger = await svc.createKey('pro');
    const { uid } = await create(owner.key, 'offchain');
    expect((await call(svc.url, 'POST', `/v1/attestations/${uid}/revoke`, { key: stranger.key })).body.code).toBe(
      'FORBIDDEN',
    );
    expect((await call(svc.url, 'POST', `/v1/attestations/${uid}/revoke`, { key: owner.key })).status).toBe(200);
    const again = await call(svc.url, 'POST', `/v1/attestations/${uid}/revoke`, { key: owner.key });
    expect(again).toMatchObject({
      status: 409,
      body: { code: 'ALREADY_REVOKED', details: { uid, revokedAt: expect.any(String) } },
    });
    expect(
      (await call(svc.url, 'POST', `/v1/attestations/0x${'ab'.repeat(32)}/revoke`, { key: owner.key })).status,
    ).toBe(404);
    expect((await call(svc.url, 'POST', `/v1/attestations/${uid}/revoke`, {})).body.code).toBe('MISSING_API_KEY');
  }, 60_000);

  it('replays with the same Idempotency-Key instead of answering 409', async () => {
    const { key } = await svc.createKey('pro');
    const { uid } = await create(key, 'onchain');
    const idem = randomUUID();
    const first = await call(svc.url, 'POST', `/v1/attestations/${uid}/revoke`, {
      key,
      headers: { 'idempotency-key': idem },
    });
    const again = await call(svc.url, 'POST', `/v1/attestations/${uid}/revoke`, {
      key,
      headers: { 'idempotency-key': idem },
    });
    expect(first.status).toBe(200);
    expect(again.body).toEqual(first.body);
  }, 60_000);

  it('replays for a second key of the account that revoked what the first made, and audits the second key', async () => {
    const { key: maker, account } = await svc.createKey('pro');
    const { key: revoker, prefix } = await svc.createKey('pro', account);
    const { uid } = await create(maker, 'onchain');
    const idem = randomUUID();
    const send = () =>
      call(svc.url, 'POST', `/v1/attestations/${uid}/revoke`, { key: revoker, headers: { 'idempotency-key': idem } });
    const first = await send();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const [entry] = await svc.db
      .selectFrom('auditEntries')
      .select('actorKeyPrefix')
      .where('action', '=', 'attestation.revoked')
      .where('resource', '=', `attestation:${uid}`)
      .execute();
    expect(entry?.actorKeyPrefix).toBe(prefix);
  }, 60_000);
});

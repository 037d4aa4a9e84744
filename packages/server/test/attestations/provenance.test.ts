import { EAS } from '@ethereum-attestation-service/eas-sdk';
import { JsonRpcProvider } from 'ethers';
import { randomBytes } from 'node:crypto';
import { createPublicClient, http, zeroAddress, zeroHash, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROVENANCE_LINKS } from '../../src/attestations/provenance.ts';
import { ATTEST_GAS, attestCalldata } from '../../src/attestations/relay-work.ts';
import { EAS_ARTIFACT } from '../../src/chain/eas-artifacts.ts';
import { encodeAttestationData, SCHEMA_UID } from '@attestation-service/protocol';
import { easSdkVerifies } from '../attesters/support.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let provider: JsonRpcProvider;
let eas: EAS;
let key: string;
let receiver: Receiver;

beforeAll(async () => {
  svc = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  provider = new JsonRpcProvider(svc.config.chain.rpcUrl, undefined, { staticNetwork: true });
  eas = new EAS(svc.config.chain.easAddress!);
  eas.connect(provider as never);
  key = (await svc.createKey('pro')).key;
  receiver = await startReceiver();
  const subscribed = await call(svc.url, 'POST', '/v1/webhooks', {
    key,
    body: { url: receiver.url, events: ['attestation.created'] },
  });
  expect(subscribed.status).toBe(201);
});
afterAll(async () => {
  provider?.destroy();
  await receiver?.close();
  await svc?.stop();
});

const claim = (mode: 'onchain' | 'offchain', refUid?: string) => ({
  type: 'human',
  contentHash: `0x${randomBytes(32).toString('hex')}`,
  contentType: 'text/plain',
  mode,
  ...(refUid ? { refUid } : {}),
});

async function create(mode: 'onchain' | 'offchain', refUid?: string): Promise<string> {
  const res = await call(svc.url, 'POST', '/v1/attestations', { key, body: claim(mode, refUid) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.uid;
}

const rowCount = async () =>
  Number(
    (
      await svc.db
        .selectFrom('attestations')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** The EAS SDK's verdict on an off-chain record: its signature, and the refUID it signed. */
async function signedRef(uid: string): Promise<string> {
  const record = (await call(svc.url, 'GET', `/v1/attestations/${uid}`)).body;
  expect(easSdkVerifies(record.offchain, record.attester)).toBe(true);
  return record.offchain.sig.message.refUID;
}

describe('provenance: refUid signed into each claim, walked back to the origin', () => {
  it('reads back a chain of on-chain and off-chain links, each link checked on the chain or by the EAS SDK', async () => {
    const origin = await create('onchain');
    const middle = await create('onchain', origin);
    const newest = await create('offchain', middle);

    expect((await eas.getAttestation(origin)).refUID).toBe(zeroHash);
    expect((await eas.getAttestation(middle)).refUID).toBe(origin);
    expect(await signedRef(newest)).toBe(middle);

    const record = await call(svc.url, 'GET', `/v1/attestations/${newest}`);
    expect(record.body.refUid).toBe(middle);
    const res = await call(svc.url, 'GET', `/v1/attestations/${newest}/provenance`);
    expect(res.status).toBe(200);
    expect(res.body.truncated).toBe(false);
    expect(res.body.links.map((l: { uid: string }) => l.uid)).toEqual([newest, middle, origin]);
    expect(res.body.links.map((l: { refUid: string | null }) => l.refUid)).toEqual([middle, origin, null]);
    expect(res.body.links.map((l: { mode: string }) => l.mode)).toEqual(['offchain', 'onchain', 'onchain']);
    expect(res.body.links.every((l: { verdict: string }) => l.verdict === 'valid')).toBe(true);

    // acyclic by construction: along the chain every origin's row is strictly older than the claim naming it
    const ids = await svc.db
      .selectFrom('attestations')
      .select(['uid', 'id'])
      .where('uid', 'in', [newest, middle, origin])
      .execute();
    const idOf = new Map(ids.map((r) => [r.uid, BigInt(r.id)]));
    expect(idOf.get(newest)! > idOf.get(middle)! && idOf.get(middle)! > idOf.get(origin)!).toBe(true);

    const events = (await receiver.waitFor(3, 30_000)).map((r) => JSON.parse(r.body));
    const created = events.find((e) => e.data.uid === newest);
    expect(created?.data.refUid).toBe(middle);
  }, 120_000);

  it("shows a revoked origin's verdict, and a claim may still derive from it", async () => {
    const origin = await create('offchain');
    const revoked = await call(svc.url, 'POST', `/v1/attestations/${origin}/revoke`, { key, body: {} });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    const derived = await create('offchain', origin);
    const res = await call(svc.url, 'GET', `/v1/attestations/${derived}/provenance`);
    expect(res.body.links.map((l: { verdict: string }) => l.verdict)).toEqual(['valid', 'revoked']);
  }, 60_000);

  it('refuses an unknown refUid with 404 NOT_FOUND and creates nothing', async () => {
    const unknown = `0x${randomBytes(32).toString('hex')}`;
    const before = await rowCount();
    for (const mode of ['offchain', 'onchain'] as const) {
      const res = await call(svc.url, 'POST', '/v1/attestations', { key, body: claim(mode, unknown) });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', details: { refUid: unknown } });
      expect(res.body.message).toContain(unknown);
    }
    expect(await rowCount()).toBe(before);
  });

  it('refuses an on-chain claim from an off-chain origin with 409 ORIGIN_NOT_ONCHAIN: EAS itself would revert', async () => {
    const origin = await create('offchain');
    const before = await rowCount();
    const res = await call(svc.url, 'POST', '/v1/attestations', { key, body: claim('onchain', origin) });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'ORIGIN_NOT_ONCHAIN', details: { refUid: origin } });
    expect(res.body.message).toContain(`/v1/attestations/${origin}/onchain`);
    expect(await rowCount()).toBe(before);

    // the reason, on the real contract: attest with that refUID reverts NotFound
    const client = createPublicClient({ transport: http(svc.config.chain.rpcUrl) });
    const request = {
      schema: SCHEMA_UID,
      data: {
        recipient: zeroAddress,
        expirationTime: 0n,
        revocable: true,
        refUID: origin as Hex,
        data: encodeAttestationData(`0x${'11'.repeat(32)}`, 'human'),
        value: 0n,
      },
    };
    const attempt = client.simulateContract({
      address: svc.config.chain.easAddress!,
      abi: EAS_ARTIFACT.abi,
      functionName: 'attest',
      args: [request],
      account: zeroAddress,
    });
    await expect(attempt).rejects.toThrow(/NotFound/);
  }, 60_000);

  it('in a batch, an item with a bad refUid fails alone; the others carry theirs, on chain too', async () => {
    const onchainOrigin = await create('onchain');
    const offchainOrigin = await create('offchain');
    const unknown = `0x${randomBytes(32).toString('hex')}`;
    const res = await call(svc.url, 'POST', '/v1/attestations/batch', {
      key,
      body: {
        attestations: [
          claim('offchain', offchainOrigin),
          claim('offchain', unknown),
          claim('onchain', onchainOrigin),
          claim('onchain', offchainOrigin),
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.attestations).toHaveLength(2);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ index: 1, code: 'NOT_FOUND', details: { refUid: unknown } }),
      expect.objectContaining({ index: 3, code: 'ORIGIN_NOT_ONCHAIN', details: { refUid: offchainOrigin } }),
    ]);
    const [offchainItem, onchainItem] = res.body.attestations;
    expect(await signedRef(offchainItem.uid)).toBe(offchainOrigin);
    expect((await eas.getAttestation(onchainItem.uid)).refUID).toBe(onchainOrigin);

    // what a refUID adds to each item of a multiAttest stays within the relayer's sizing figure
    const client = createPublicClient({ transport: http(svc.config.chain.rpcUrl) });
    const gasOf = (refUid: string | null) =>
      client.estimateGas({
        to: svc.config.chain.easAddress!,
        data: attestCalldata(
          [1, 2].map(() => ({
            type: 'human' as const,
            contentHash: `0x${randomBytes(32).toString('hex')}` as Hex,
            refUid: refUid as Hex | null,
          })),
        ),
      });
    const perItem = ((await gasOf(onchainOrigin)) - (await gasOf(null))) / 2n;
    expect(perItem > 0n && perItem <= ATTEST_GAS.ref).toBe(true);
  }, 120_000);

  it(`answers at most ${MAX_PROVENANCE_LINKS} links of a longer chain, truncated, in one bounded walk`, async () => {
    let uid = await create('offchain');
    for (let i = 0; i < MAX_PROVENANCE_LINKS + 1; i++) uid = await create('offchain', uid);
    const res = await call(svc.url, 'GET', `/v1/attestations/${uid}/provenance`);
    expect(res.body.links).toHaveLength(MAX_PROVENANCE_LINKS);
    expect(res.body.truncated).toBe(true);
  }, 60_000);

  it('walks only to older rows: even a link forged into a cycle in the database ends the walk', async () => {
    const origin = await create('offchain');
    const derived = await create('offchain', origin);
    await svc.db.updateTable('attestations').set({ refUid: derived }).where('uid', '=', origin).execute();
    const res = await call(svc.url, 'GET', `/v1/attestations/${derived}/provenance`);
    expect(res.body.links.map((l: { uid: string }) => l.uid)).toEqual([derived, origin]);
    expect(res.body.truncated).toBe(false);
  });

  it('answers 404 for an unknown uid, and an origin alone for a claim with no refUid', async () => {
    const missing = await call(svc.url, 'GET', `/v1/attestations/0x${'ab'.repeat(32)}/provenance`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
    const origin = await create('offchain');
    const res = await call(svc.url, 'GET', `/v1/attestations/${origin}/provenance`);
    expect(res.body.links).toHaveLength(1);
    expect(res.body.links[0]).toMatchObject({ uid: origin, refUid: null, verdict: 'valid' });
  });
});

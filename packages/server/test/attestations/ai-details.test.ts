import { EAS, Offchain, OffchainAttestationVersion, SchemaEncoder } from '@ethereum-attestation-service/eas-sdk';
import { JsonRpcProvider } from 'ethers';
import { createHash } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { decodeAbiParameters, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AI_DETAILS_SCHEMA, AI_DETAILS_SCHEMA_UID, SCHEMA_UID } from '@attestation-service/protocol';
import { ATTESTATION_ASSERTION, manifestDefinition } from '../../src/credentials/c2pa/manifest.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let receiver: Receiver;
let provider: JsonRpcProvider;
let eas: EAS;

beforeAll(async () => {
  svc = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  receiver = await startReceiver();
  provider = new JsonRpcProvider(svc.config.chain.rpcUrl, undefined, { staticNetwork: true });
  eas = new EAS(svc.config.chain.easAddress!);
  eas.connect(provider as never);
}, 60_000);
afterAll(async () => {
  provider?.destroy();
  await receiver?.close();
  await svc?.stop();
});

const sha = (text: string) => `0x${createHash('sha256').update(text).digest('hex')}`;
const PROMPT_HASH = sha('a watercolour fox');
const item = (overrides: Record<string, unknown> = {}) => ({
  type: 'ai',
  content: `ai details ${Math.random()}`,
  contentType: 'image/png',
  mode: 'offchain',
  ai: { model: 'gpt-image-1', promptHash: PROMPT_HASH },
  ...overrides,
});

async function credentialOf(uid: string) {
  const res = await fetch(`${svc.url}/v1/attestations/${uid}/credential`);
  expect(res.status).toBe(200);
  const keys = (await (await fetch(`${svc.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
  return (await jwtVerify(await res.text(), createLocalJWKSet(keys), { typ: 'vc+jwt' })).payload as Record<string, any>;
}

/** The EAS SDK's own check of an off-chain package's signature (uint64s and the chain id as bigints). */
function easSdkVerifies(pkg: any, attester: string): boolean {
  const { domain, message } = pkg.sig;
  const offchain = new Offchain(
    { address: domain.verifyingContract, version: domain.version, chainId: BigInt(domain.chainId) },
    OffchainAttestationVersion.Version2,
    new EAS(domain.verifyingContract),
  );
  return offchain.verifyOffchainAttestationSignature(attester, {
    ...pkg.sig,
    domain: { ...domain, chainId: BigInt(domain.chainId) },
    message: { ...message, time: BigInt(message.time), expirationTime: BigInt(message.expirationTime) },
  });
}

describe('ai: the model behind an AI claim', () => {
  it('on chain: stored and shown, the EAS data unchanged, the Verifiable Credential signing the model', async () => {
    const { key } = await svc.createKey('pro');
    const body = item({ mode: 'onchain', ai: { model: 'meta/llama-3.1:70b' } });
    const res = await call(svc.url, 'POST', '/v1/attestations', { key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.ai).toEqual({ model: 'meta/llama-3.1:70b', promptHash: null, offchain: null });
    const record = (await call(svc.url, 'GET', `/v1/attestations/${res.body.uid}`)).body;
    expect(record.ai).toEqual({ model: 'meta/llama-3.1:70b', promptHash: null, offchain: null });

    // decoded from EAS: our schema's two words, as for any claim (docs/decisions.md, "The model behind an AI claim")
    const onchain = await eas.getAttestation(res.body.uid);
    expect(onchain.schema).toBe(SCHEMA_UID);
    const [contentHash, aiGenerated] = decodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'bool' }],
      onchain.data as Hex,
    );
    expect([contentHash, aiGenerated]).toEqual([sha(body.content as string), true]);

    const vc = await credentialOf(res.body.uid);
    expect(vc.credentialSubject.ai).toEqual({ model: 'meta/llama-3.1:70b', promptHash: null });
  }, 60_000);

  it('off chain: in the created result, the record, the search, the batch items and the webhook', async () => {
    const { key } = await svc.createKey('enterprise');
    const sub = { url: receiver.url, events: ['attestation.created'] };
    expect((await call(svc.url, 'POST', '/v1/webhooks', { key, body: sub })).status).toBe(201);
    const body = item({ ai: { model: 'gpt-image-1', promptHash: PROMPT_HASH.slice(2).toUpperCase() } });
    const res = await call(svc.url, 'POST', '/v1/attestations', { key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const shown = { model: 'gpt-image-1', promptHash: PROMPT_HASH, offchain: expect.any(Object) };
    expect(res.body.ai).toEqual(shown);
    expect(res.body.ai.offchain.sig.message).toMatchObject({ refUID: res.body.uid, schema: AI_DETAILS_SCHEMA_UID });
    expect(easSdkVerifies(res.body.ai.offchain, res.body.offchain.signer)).toBe(true);
    const decoded = new SchemaEncoder(AI_DETAILS_SCHEMA).decodeData(res.body.ai.offchain.sig.message.data);
    expect(decoded.map((field) => field.value.value)).toEqual(['gpt-image-1', PROMPT_HASH]);
    const record = (await call(svc.url, 'GET', `/v1/attestations/${res.body.uid}`)).body;
    expect(record.ai).toEqual(res.body.ai);
    const manifest = JSON.parse(manifestDefinition({ record, easContract: svc.config.chain.easAddress! }, 'image/png'));
    expect(manifest.assertions.find((a: { label: string }) => a.label === ATTESTATION_ASSERTION).data.ai).toEqual({
      model: 'gpt-image-1',
      promptHash: PROMPT_HASH,
    });
    const found = await call(svc.url, 'GET', `/v1/attestations?hash=${sha(body.content as string)}`);
    expect(found.body.data.map((r: { ai: unknown }) => r.ai)).toEqual([res.body.ai]);
    expect((await credentialOf(res.body.uid)).credentialSubject.ai).toEqual({
      model: 'gpt-image-1',
      promptHash: PROMPT_HASH,
    });

    const batch = await call(svc.url, 'POST', '/v1/attestations/batch', {
      key,
      body: { attestations: [item({ ai: { model: 'sora-2' } }), item({ type: 'human', ai: undefined })] },
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(201);
    expect(batch.body.attestations[0].ai).toMatchObject({ model: 'sora-2', promptHash: null });
    expect(batch.body.attestations[1].ai).toBeUndefined();

    const events = (await receiver.waitFor(3, 30_000)).map((r) => JSON.parse(r.body) as { data: any });
    const byUid = new Map(events.map((e) => [e.data.uid, e.data.ai]));
    expect(byUid.get(res.body.uid)).toEqual(res.body.ai);
    expect(byUid.get(batch.body.attestations[0].uid)).toMatchObject({ model: 'sora-2' });
    expect(byUid.get(batch.body.attestations[1].uid)).toBeNull();
  }, 60_000);

  it.each([
    ['on a human claim', { type: 'human' }, 'ai'],
    ['on a human on-chain claim', { type: 'human', mode: 'onchain' }, 'ai'],
    ['with a space in the model', { ai: { model: 'gpt 4' } }, 'ai.model'],
    ['with markup in the model', { ai: { model: '<b>x</b>' } }, 'ai.model'],
    ['with a model of 65 characters', { ai: { model: 'm'.repeat(65) } }, 'ai.model'],
    ['with a prompt hash that is not SHA-256', { ai: { model: 'x', promptHash: 'abc' } }, 'ai.promptHash'],
  ])('answers 400 VALIDATION_FAILED %s and creates nothing', async (_, overrides, path) => {
    const { key } = await svc.createKey('pro');
    const body = item(overrides);
    const res = await call(svc.url, 'POST', '/v1/attestations', { key, body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.details.errors).toEqual([expect.objectContaining({ path })]);
    const hash = sha(body.content as string);
    expect((await call(svc.url, 'GET', `/v1/attestations?hash=${hash}`)).body.data).toEqual([]);
  });

  it('refuses a whole batch whose one human item names a model, naming the item', async () => {
    const { key } = await svc.createKey('pro');
    const res = await call(svc.url, 'POST', '/v1/attestations/batch', {
      key,
      body: { attestations: [item(), item({ type: 'human' })] },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.errors).toEqual([expect.objectContaining({ path: 'attestations.1.ai' })]);
  });
});

import { gunzipSync } from 'node:zlib';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusBitOf } from '../../src/credentials/vc/status-list.ts';
import { runCli } from '../support/cli.ts';
import { TEST_SERVICE_SECRET } from '../support/secret.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ env: { PUBLIC_BASE_URL: 'https://api.example.org' } });
  key = (await svc.createKey('enterprise')).key;
}, 60_000);
afterAll(() => svc?.stop());

const ISSUER = 'did:web:api.example.org';

async function create(mode: 'onchain' | 'offchain', extra: Record<string, unknown> = {}) {
  const body = { type: 'ai', content: `vc ${Math.random()}`, contentType: 'image/png', mode, ...extra };
  const res = await call(svc.url, 'POST', '/v1/attestations', { key, body });
  expect(res.status).toBe(201);
  return res.body as { uid: string };
}

async function jwks(): Promise<JSONWebKeySet> {
  const res = await fetch(`${svc.url}/.well-known/jwks.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as JSONWebKeySet;
}

/** A vc+jwt answer: its media type checked, its signature verified against the published keys. */
async function verified(path: string) {
  const res = await fetch(`${svc.url}${path}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/vc+jwt');
  const jwt = await res.text();
  const { payload, protectedHeader } = await jwtVerify(jwt, createLocalJWKSet(await jwks()), { typ: 'vc+jwt' });
  return { payload: payload as Record<string, any>, header: protectedHeader, cache: res.headers.get('cache-control') };
}

async function statusBit(credential: Record<string, any>): Promise<boolean> {
  const { statusListCredential, statusListIndex } = credential.credentialStatus;
  const list = await verified(new URL(statusListCredential).pathname);
  expect(list.payload.type).toEqual(['VerifiableCredential', 'BitstringStatusListCredential']);
  expect(list.payload.credentialSubject).toMatchObject({ type: 'BitstringStatusList', statusPurpose: 'revocation' });
  const bits = gunzipSync(Buffer.from(list.payload.credentialSubject.encodedList.slice(1), 'base64url'));
  expect(bits.length * 8).toBeGreaterThanOrEqual(131_072);
  return statusBitOf(list.payload.credentialSubject.encodedList, Number(statusListIndex), gunzipSync);
}

describe('GET /v1/attestations/{uid}/credential', () => {
  it('is a VC 2.0 as vc+jwt, signed by a published key, naming the attestation and its status entry', async () => {
    const { uid } = await create('offchain', {
      digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/compositeWithTrainedAlgorithmicMedia',
    });
    const { payload, header, cache } = await verified(`/v1/attestations/${uid}/credential`);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'vc+jwt', kid: expect.stringMatching(`^${ISSUER}#key-`) });
    expect(cache).toMatch(/public/);
    const record = (await call(svc.url, 'GET', `/v1/attestations/${uid}`)).body;
    expect(payload).toMatchObject({
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiableCredential', 'ContentOriginCredential'],
      issuer: ISSUER,
      validFrom: record.createdAt,
      credentialSubject: {
        contentHash: record.contentHash,
        origin: 'ai',
        digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/compositeWithTrainedAlgorithmicMedia',
        attester: record.attester,
        eas: { uid, mode: 'offchain', chainId: record.chainId, schema: record.schemaUid },
        verifyUrl: record.verifyUrl,
      },
      credentialStatus: {
        type: 'BitstringStatusListEntry',
        statusPurpose: 'revocation',
        statusListIndex: expect.stringMatching(/^\d+$/),
        statusListCredential: expect.stringMatching(/^https:\/\/api\.example\.org\/v1\/status-lists\/\d+$/),
      },
    });
  });

  it('answers 404 NOT_FOUND for an unknown uid, 400 for a malformed one', async () => {
    const missing = await call(svc.url, 'GET', `/v1/attestations/0x${'00'.repeat(32)}/credential`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
    expect((await call(svc.url, 'GET', '/v1/attestations/0x12/credential')).status).toBe(400);
  });
});

describe('status lists', () => {
  it.each(['offchain', 'onchain'] as const)(
    'flips the bit of a %s attestation when it is revoked, and of no other',
    async (mode) => {
      const { uid } = await create(mode);
      const { uid: neighbour } = await create(mode);
      const credential = (await verified(`/v1/attestations/${uid}/credential`)).payload;
      const other = (await verified(`/v1/attestations/${neighbour}/credential`)).payload;
      expect(other.credentialStatus.statusListIndex).not.toBe(credential.credentialStatus.statusListIndex);
      expect(await statusBit(credential)).toBe(false);
      const revoked = await call(svc.url, 'POST', `/v1/attestations/${uid}/revoke`, { key });
      expect(revoked.status).toBe(200);
      expect(await statusBit(credential)).toBe(true);
      expect(await statusBit(other)).toBe(false);
    },
    60_000,
  );

  it('is served with short caching; a list no attestation reaches is 404, a malformed one 400', async () => {
    const { uid } = await create('offchain');
    const { payload } = await verified(`/v1/attestations/${uid}/credential`);
    const list = await verified(new URL(payload.credentialStatus.statusListCredential).pathname);
    expect(list.cache).toBe('public, max-age=60');
    expect(list.payload.issuer).toBe(ISSUER);
    expect((await call(svc.url, 'GET', '/v1/status-lists/99999999')).status).toBe(404);
    expect((await call(svc.url, 'GET', '/v1/status-lists/-1')).status).toBe(400);
    expect((await call(svc.url, 'GET', '/v1/status-lists/01')).status).toBe(400);
  });
});

describe('issuer keys', () => {
  it('publishes the same keys as JWKS and as the did:web document', async () => {
    const { keys } = await jwks();
    expect(keys.length).toBeGreaterThan(0);
    for (const jwk of keys) {
      expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(jwk).not.toHaveProperty('d');
    }
    const did = (await call(svc.url, 'GET', '/.well-known/did.json')).body;
    expect(did.id).toBe(ISSUER);
    expect(did.assertionMethod).toEqual(keys.map((k) => k.kid));
    expect(did.verificationMethod.map((m: { publicKeyJwk: unknown }) => m.publicKeyJwk)).toEqual(keys);
  });

  it('keeps the private key sealed at rest', async () => {
    await jwks();
    const rows = await svc.db.selectFrom('credentialKeys').select('privateJwkSealed as sealed').execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const { sealed } of rows) {
      expect(sealed).toMatch(/^c1\./);
      expect(() => JSON.parse(sealed)).toThrow();
    }
  });

  it('a credential names its key by kid in the header', async () => {
    const { uid } = await create('offchain');
    const res = await fetch(`${svc.url}/v1/attestations/${uid}/credential`);
    const header = decodeProtectedHeader(await res.text());
    expect((await jwks()).keys.map((k) => k.kid)).toContain(header.kid);
  });
});

describe('key rotation (the CLI)', () => {
  let rotating: TestService;
  let skew = 0;
  beforeAll(async () => {
    rotating = await startTestService({
      env: { PUBLIC_BASE_URL: 'https://rotate.example.org' },
      clock: { now: () => Date.now() + skew },
    });
  }, 60_000);
  afterAll(() => rotating?.stop());

  const env = () => ({
    ...process.env,
    DATABASE_URL: rotating.config.databaseUrl,
    SERVICE_SECRET: TEST_SERVICE_SECRET,
    PUBLIC_BASE_URL: 'https://rotate.example.org',
    LOG_LEVEL: 'silent',
  });
  const keysOf = async () =>
    ((await (await fetch(`${rotating.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet).keys.map((k) => k.kid);

  it('signs with the new key once processes reread (30 s); the old one verifies until retired', async () => {
    const { key: apiKey } = await rotating.createKey('pro');
    const body = { type: 'human', content: `rotate ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' };
    const { uid } = (await call(rotating.url, 'POST', '/v1/attestations', { key: apiKey, body })).body;
    const credentialAt = async () => (await fetch(`${rotating.url}/v1/attestations/${uid}/credential`)).text();
    const before = await credentialAt();
    const [first] = await keysOf();

    const rotated = await runCli(env(), 'credentials', 'rotate-key', '--json');
    expect(rotated.code).toBe(0);
    const { kid } = JSON.parse(rotated.stdout) as { kid: string };
    skew += 31_000;
    expect(await keysOf()).toEqual([kid, first]);
    const after = await credentialAt();
    expect(decodeProtectedHeader(after).kid).toBe(kid);
    const published = createLocalJWKSet({ keys: await jwksOf(rotating) });
    await expect(jwtVerify(before, published, { typ: 'vc+jwt' })).resolves.toBeTruthy();

    const retired = await runCli(env(), 'credentials', 'retire-key', first!);
    expect(retired.code).toBe(0);
    skew += 31_000;
    expect(await keysOf()).toEqual([kid]);
    await expect(jwtVerify(before, createLocalJWKSet({ keys: await jwksOf(rotating) }))).rejects.toThrow();
    await expect(jwtVerify(after, createLocalJWKSet({ keys: await jwksOf(rotating) }))).resolves.toBeTruthy();
    expect((await runCli(env(), 'credentials', 'retire-key', first!)).code).toBe(1);
  }, 60_000);
});

async function jwksOf(service: TestService) {
  return ((await (await fetch(`${service.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet).keys;
}

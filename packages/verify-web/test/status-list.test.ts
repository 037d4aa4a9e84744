import { gzipSync } from 'node:zlib';
import type { Attestation } from '@attestation-service/client';
import { CompactSign, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCredentialSource } from '../src/credentials/credential-source.ts';
import { createStatusListChecker, STATUS_LIST_MIN_BITS, statusBit } from '../src/credentials/status-list.ts';

const API = 'http://api.test';
const ISSUER = 'did:web:api.example';
const UID = `0x${'ab'.repeat(32)}`;
const HASH = `0x${'5a'.repeat(32)}`;
const SOURCE_TYPE = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';
const record = {
  uid: UID,
  type: 'ai',
  contentHash: HASH,
  digitalSourceType: SOURCE_TYPE,
} as unknown as Attestation;

interface Key {
  privateKey: CryptoKey;
  jwk: JWK;
}
let key: Key;
let other: Key;

async function newKey(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: `${ISSUER}#${kid}`, alg: 'ES256', use: 'sig' } };
}

beforeAll(async () => {
  [key, other] = await Promise.all([newKey('key-1'), newKey('key-2')]);
});

const sign = (payload: object, by: Key = key, typ = 'vc+jwt') =>
  new CompactSign(Buffer.from(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'ES256', typ, kid: by.jwk.kid! })
    .sign(by.privateKey);

function encodedList(revoked: number[], bits = STATUS_LIST_MIN_BITS): string {
  const bytes = Buffer.alloc(bits / 8);
  for (const i of revoked) bytes[i >> 3]! |= 0x80 >> (i & 7);
  return `u${gzipSync(bytes).toString('base64url')}`;
}

function credential(overrides: Record<string, unknown> = {}, subject: Record<string, unknown> = {}) {
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiableCredential', 'ContentOriginCredential'],
    issuer: ISSUER,
    credentialSubject: {
      contentHash: HASH,
      origin: 'ai',
      digitalSourceType: SOURCE_TYPE,
      eas: { uid: UID },
      ...subject,
    },
    credentialStatus: {
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: '42',
      // the public URL names another host: the list is still read from the configured API
      statusListCredential: 'https://public.example/v1/status-lists/7',
    },
    ...overrides,
  };
}

function statusList(list: string, overrides: Record<string, unknown> = {}) {
  return {
    type: ['VerifiableCredential', 'BitstringStatusListCredential'],
    issuer: ISSUER,
    credentialSubject: { type: 'BitstringStatusList', statusPurpose: 'revocation', encodedList: list },
    ...overrides,
  };
}

/** An API of fixed answers by path; `seen` lists the paths asked for. */
function api(routes: Record<string, () => Promise<Response> | Response>) {
  const seen: string[] = [];
  const fetch = (async (input: string | URL | Request) => {
    const url = new URL(String(input));
    expect(url.origin).toBe(API);
    seen.push(url.pathname);
    const route = routes[url.pathname];
    return route ? route() : new Response('{"code":"NOT_FOUND"}', { status: 404 });
  }) as typeof globalThis.fetch;
  return { seen, checker: createStatusListChecker(createCredentialSource(API, { fetch })) };
}

const text = (body: string | Promise<string>) => async () => new Response(await body);
const jwks =
  (...keys: Key[]) =>
  () =>
    Response.json({ keys: keys.map((k) => k.jwk) });

describe('the status list signal', () => {
  it('reads the bit of the credential from the list it names, both verified against the JWKS', async () => {
    for (const [revoked, state] of [
      [[41, 43], 'not-revoked'],
      [[42], 'revoked'],
    ] as const) {
      const { checker, seen } = api({
        [`/v1/attestations/${UID}/credential`]: text(sign(credential())),
        '/v1/status-lists/7': text(sign(statusList(encodedList([...revoked])))),
        '/.well-known/jwks.json': jwks(key),
      });
      expect(await checker.check(record, '203.0.113.1')).toEqual({ state, list: '7', index: 42 });
      expect(seen).toContain('/v1/status-lists/7');
    }
  });

  it('says "could not check" when the API is down or answers an error, never "not revoked"', async () => {
    const down = api({
      [`/v1/attestations/${UID}/credential`]: () => Promise.reject(new TypeError('fetch failed')),
    });
    expect(await down.checker.check(record, 'ip')).toMatchObject({ state: 'unchecked' });
    const failing = api({
      [`/v1/attestations/${UID}/credential`]: text(sign(credential())),
      '/v1/status-lists/7': () => new Response('busy', { status: 503 }),
      '/.well-known/jwks.json': jwks(key),
    });
    expect(await failing.checker.check(record, 'ip')).toEqual({
      state: 'unchecked',
      reason: 'the API answered /v1/status-lists/7 with 503',
    });
    const older = api({});
    expect(await older.checker.check(record, 'ip')).toEqual({
      state: 'unchecked',
      reason: 'the API serves no credential for this attestation',
    });
  });

  it('is unsound when a signature does not verify, or no published key made it', async () => {
    const good = await sign(credential());
    const forged = `${good.slice(0, good.lastIndexOf('.'))}.${'A'.repeat(86)}`;
    for (const served of [forged, await sign(credential(), other), await sign(credential(), key, 'JWT')]) {
      const { checker } = api({
        [`/v1/attestations/${UID}/credential`]: text(served),
        '/.well-known/jwks.json': jwks(key),
      });
      expect(await checker.check(record, 'ip')).toMatchObject({ state: 'unsound' });
    }
  });

  it('reads the JWKS again for a key it does not list yet (a rotation), and then verifies', async () => {
    let rotated = false;
    const { checker, seen } = api({
      [`/v1/attestations/${UID}/credential`]: text(sign(credential(), other)),
      '/v1/status-lists/7': text(sign(statusList(encodedList([])), other)),
      '/.well-known/jwks.json': () => (rotated ? jwks(key, other)() : ((rotated = true), jwks(key)())),
    });
    expect(await checker.check(record, 'ip')).toMatchObject({ state: 'not-revoked' });
    expect(seen.filter((path) => path === '/.well-known/jwks.json')).toHaveLength(2);
  });

  it("is unsound when the credential is another attestation's, or says otherwise than the record", async () => {
    for (const served of [
      credential({}, { eas: { uid: `0x${'cd'.repeat(32)}` } }),
      credential({}, { contentHash: `0x${'00'.repeat(32)}` }),
      credential({}, { origin: 'human' }),
      credential({}, { digitalSourceType: `${SOURCE_TYPE.replace('trained', 'composite')}` }),
      credential({ issuer: 'did:web:elsewhere.example' }),
      credential({ credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'suspension' } }),
    ]) {
      const { checker } = api({
        [`/v1/attestations/${UID}/credential`]: text(sign(served)),
        '/.well-known/jwks.json': jwks(key),
      });
      expect(await checker.check(record, 'ip'), JSON.stringify(served)).toMatchObject({ state: 'unsound' });
    }
  });

  it("is unsound when the list is another issuer's, expired, or not a list of enough bits", async () => {
    for (const list of [
      statusList(encodedList([]), { issuer: 'did:web:elsewhere.example' }),
      statusList(encodedList([]), { validUntil: '2020-01-01T00:00:00Z' }),
      statusList(encodedList([], 1024)),
      statusList('not multibase'),
    ]) {
      const { checker } = api({
        [`/v1/attestations/${UID}/credential`]: text(sign(credential())),
        '/v1/status-lists/7': text(sign(list)),
        '/.well-known/jwks.json': jwks(key),
      });
      expect(await checker.check(record, 'ip'), JSON.stringify(list)).toMatchObject({ state: 'unsound' });
    }
  });

  it('refuses a list that decompresses past a megabyte', () => {
    const bomb = `u${gzipSync(Buffer.alloc(4 << 20)).toString('base64url')}`;
    expect(() => statusBit(bomb, 0)).toThrow(/does not decompress/);
    expect(statusBit(encodedList([0, 131_071]), 131_071)).toBe(true);
    expect(statusBit(encodedList([0]), 1)).toBe(false);
  });

  it('caches the list and the keys, and reads the list afresh when asked', async () => {
    const { checker, seen } = api({
      [`/v1/attestations/${UID}/credential`]: text(sign(credential())),
      '/v1/status-lists/7': text(sign(statusList(encodedList([])))),
      '/.well-known/jwks.json': jwks(key),
    });
    await checker.check(record, 'ip');
    await checker.check(record, 'ip');
    await checker.check(record, 'ip', true);
    expect(seen.filter((path) => path === '/v1/status-lists/7')).toHaveLength(2);
    expect(seen.filter((path) => path === '/.well-known/jwks.json')).toHaveLength(1);
    expect(seen.filter((path) => path.endsWith('/credential'))).toHaveLength(3);
  });
});

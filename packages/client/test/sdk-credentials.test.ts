import type { JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../server/test/support/service.ts';
import { createClient, CredentialVerificationError, isServiceError, verifyCredential } from '../src/index.ts';
import { fixture, readBack, sha256, signerEnv } from '../../server/test/credentials/c2pa-reader.ts';
import { caught } from './caught.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ env: { PUBLIC_BASE_URL: 'http://127.0.0.1:1', ...(await signerEnv()) } });
});
afterAll(() => svc?.stop());

/** The keys the service publishes. */
const publishedKeys = async () =>
  (await (await fetch(`${svc.url}/.well-known/jwks.json`)).json()) as { keys: Array<JWK & { kid: string }> };

/** An off-chain attestation of a fresh account, and its credential. */
async function attested(type: 'human' | 'ai') {
  const { key } = await svc.createKey('pro');
  const client = createClient({ baseUrl: svc.url, apiKey: key });
  const body = { type, content: `sdk vc ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' } as const;
  const { uid } = await client.attestations.create(body);
  return { client, uid, jwt: await client.attestations.credential(uid) };
}

/** The service's answers under its own base URL (the test service advertises an address it does not listen on). */
const served: typeof fetch = (input, init) =>
  fetch(String(input instanceof Request ? input.url : input).replace('http://127.0.0.1:1', svc.url), init);

describe('SDK: Verifiable Credentials', () => {
  it('reads a credential, verifies it against the JWKS and its status list, before and after a revoke', async () => {
    const { key } = await svc.createKey('pro');
    const client = createClient({ baseUrl: svc.url, apiKey: key });
    const created = await client.attestations.create({
      type: 'human',
      content: `sdk vc ${Math.random()}`,
      contentType: 'text/plain',
      mode: 'offchain',
      digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/humanEdits',
    });
    expect(created.digitalSourceType).toBe('http://cv.iptc.org/newscodes/digitalsourcetype/humanEdits');
    const jwt = await createClient({ baseUrl: svc.url }).attestations.credential(created.uid);
    const jwks = await publishedKeys();

    const fresh = await verifyCredential(jwt, { jwks, fetch: served, issuer: 'did:web:127.0.0.1%3A1' });
    expect(fresh.revoked).toBe(false);
    expect(fresh.kid).toBe(jwks.keys[0]!.kid);
    expect(fresh.credential.credentialSubject).toMatchObject({
      origin: 'human',
      digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/humanEdits',
      eas: { uid: created.uid, mode: 'offchain' },
    });

    await client.attestations.revoke(created.uid);
    expect((await verifyCredential(jwt, { jwks, fetch: served })).revoked).toBe(true);
    expect(await verifyCredential(jwt, { jwks, checkStatus: false })).not.toHaveProperty('revoked');
  });

  it('fetches the JWKS from its URL', async () => {
    const { jwt } = await attested('ai');
    const verified = await verifyCredential(jwt, { jwks: `${svc.url}/.well-known/jwks.json`, checkStatus: false });
    expect(verified.credential.credentialSubject.origin).toBe('ai');
  });

  it('refuses a tampered credential, another issuer and keys that did not sign it', async () => {
    const { jwt } = await attested('ai');
    const jwks = await publishedKeys();
    const [header, payload, signature] = jwt.split('.');
    const forged = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    forged.credentialSubject.origin = 'human';
    const tampered = [header, Buffer.from(JSON.stringify(forged)).toString('base64url'), signature].join('.');
    await expect(verifyCredential(tampered, { jwks, checkStatus: false })).rejects.toThrow(CredentialVerificationError);
    await expect(
      verifyCredential(jwt, { jwks, issuer: 'did:web:elsewhere.example', checkStatus: false }),
    ).rejects.toThrow(/issuer/);
    const otherKeys = {
      keys: jwks.keys.map((k) => ({ ...k, x: k.y, y: k.x })),
    };
    await expect(verifyCredential(jwt, { jwks: otherKeys, checkStatus: false })).rejects.toThrow(
      CredentialVerificationError,
    );
  });

  it('answers an unknown uid with NOT_FOUND', async () => {
    const error = await caught(createClient({ baseUrl: svc.url }).attestations.credential(`0x${'00'.repeat(32)}`));
    expect(isServiceError(error, 'NOT_FOUND')).toBe(true);
  });
});

describe('SDK: Content Credentials', () => {
  it('labels the attested bytes, embedded or as a sidecar, and refuses other bytes with CONTENT_MISMATCH', async () => {
    const { key } = await svc.createKey('pro');
    const client = createClient({ baseUrl: svc.url, apiKey: key });
    const image = fixture('asset.jpg');
    const { uid } = await client.attestations.create({
      type: 'ai',
      contentHash: sha256(image),
      contentType: 'image/jpeg',
      mode: 'offchain',
    });
    const labelled = await client.attestations.contentCredentials(uid, image, { mediaType: 'image/jpeg' });
    const read = await readBack('image/jpeg', labelled);
    expect(read.assertions['org.attestation-service.attestation']).toMatchObject({ uid });
    expect(read.failures).toEqual(['signingCredential.untrusted']);

    const sidecar = await client.attestations.contentCredentials(uid, image, {
      mediaType: 'image/jpeg',
      sidecar: true,
    });
    expect(sidecar.length).toBeGreaterThan(0);
    expect(sidecar.length).toBeLessThan(labelled.length);

    const other = await caught(
      client.attestations.contentCredentials(uid, fixture('asset.png'), { mediaType: 'image/png' }),
    );
    expect(isServiceError(other, 'CONTENT_MISMATCH')).toBe(true);
    expect(isServiceError(other, 'CONTENT_MISMATCH') && other.details.expected).toBe(sha256(image));
  });
});

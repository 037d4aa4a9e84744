import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ env: { VERIFY_BASE_URL: 'https://verify.example.org' } });
  key = (await svc.createKey('enterprise')).key;
});
afterAll(() => svc?.stop());

const sha = (text: string) => `0x${createHash('sha256').update(text).digest('hex')}`;
const offchain = (overrides: Record<string, unknown> = {}) => ({
  type: 'human',
  content: 'a poem',
  contentType: 'text/plain',
  mode: 'offchain',
  ...overrides,
});
const create = (body: unknown) => call(svc.url, 'POST', '/v1/attestations', { key, body });

describe('POST /v1/attestations (off-chain)', () => {
  it('answers 201 with uid, null txHash, verifyUrl, mode and the signed package', async () => {
    const res = await create(offchain());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ uid: expect.stringMatching(/^0x[0-9a-f]{64}$/), txHash: null, mode: 'offchain' });
    expect(res.body.verifyUrl).toBe(`https://verify.example.org/${res.body.uid}`);
    expect(res.body.offchain.signer).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it('accepts a contentHash instead of content, in any case and with or without 0x', async () => {
    const hash = sha('big file');
    const res = await create(
      offchain({ content: undefined, contentHash: hash.slice(2).toUpperCase(), contentType: 'Image/PNG' }),
    );
    expect(res.status).toBe(201);
    const read = await call(svc.url, 'GET', `/v1/attestations/${res.body.uid}`);
    expect(read.body).toMatchObject({
      contentHash: hash,
      contentType: 'image/png',
      type: 'human',
      mode: 'offchain',
      revoked: false,
      revokedAt: null,
    });
  });

  it('stores the hash of the content, never the content', async () => {
    const content = `secret manuscript ${Math.random()}`;
    const res = await create(offchain({ content, type: 'ai' }));
    const read = await call(svc.url, 'GET', `/v1/attestations/${res.body.uid}`);
    expect(read.body.contentHash).toBe(sha(content));
    expect(JSON.stringify(read.body)).not.toContain(content);
  });

  it.each([
    ['no type', { type: undefined }, 'type'],
    ['an unknown type', { type: 'robot' }, 'type'],
    ['neither content nor contentHash', { content: undefined }, 'content'],
    ['both content and contentHash', { contentHash: sha('x') }, 'content'],
    ['empty content', { content: '' }, 'content'],
    ['a short contentHash', { content: undefined, contentHash: 'abc' }, 'contentHash'],
    ['a non-hex contentHash', { content: undefined, contentHash: `0x${'zz'.repeat(32)}` }, 'contentHash'],
    ['no contentType', { contentType: undefined }, 'contentType'],
    ['a contentType that is not a media type', { contentType: 'plain text' }, 'contentType'],
    ['an unknown mode', { mode: 'sidechain' }, 'mode'],
    ['a field the API does not know', { colour: 'blue' }, ''],
    ['a number for content', { content: 42 }, 'content'],
  ])('answers 400 VALIDATION_FAILED for %s, naming the field', async (_, overrides, path) => {
    const res = await create(offchain(overrides));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.details.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });

  it('creates nothing when the request is invalid', async () => {
    const hash = sha(`invalid ${Math.random()}`);
    await create(offchain({ content: undefined, contentHash: hash, mode: 'nope' }));
    const search = await call(svc.url, 'GET', `/v1/attestations?hash=${hash}`);
    expect(search.body.data).toEqual([]);
  });
});

describe('GET /v1/attestations/:uid', () => {
  it('answers 404 NOT_FOUND for an unknown uid', async () => {
    const res = await call(svc.url, 'GET', `/v1/attestations/0x${'00'.repeat(32)}`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('answers 400 for a uid that is not 32 bytes of hex', async () => {
    const res = await call(svc.url, 'GET', '/v1/attestations/0x1234');
    expect(res.status).toBe(400);
    expect(res.body.details.errors[0].path).toBe('uid');
  });

  it('is public and shows no account or key data', async () => {
    const created = await create(offchain());
    const res = await call(svc.url, 'GET', `/v1/attestations/${created.body.uid}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'ai',
        'anchor',
        'attester',
        'blockNumber',
        'chainId',
        'claimant',
        'contentHash',
        'contentType',
        'createdAt',
        'digitalSourceType',
        'mode',
        'offchain',
        'offchainUid',
        'onchainUid',
        'refUid',
        'revocationTxHash',
        'revoked',
        'revokedAt',
        'schemaUid',
        'txHash',
        'type',
        'uid',
        'verifyUrl',
      ].sort(),
    );
  });
});

describe('GET /v1/attestations?hash=', () => {
  it('pages newest first with an opaque cursor until nextCursor is null', async () => {
    const content = `paged ${Math.random()}`;
    const uids: string[] = [];
    for (let i = 0; i < 5; i++) uids.push((await create(offchain({ content }))).body.uid);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await call(
        svc.url,
        'GET',
        `/v1/attestations?hash=${sha(content)}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((r: { uid: string }) => r.uid));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(uids.reverse());
  });

  it('answers 200 with an empty page for an unknown hash', async () => {
    const res = await call(svc.url, 'GET', `/v1/attestations?hash=${sha('nobody attested this')}`);
    expect(res).toMatchObject({ status: 200, body: { data: [], nextCursor: null } });
  });

  it.each([
    ['no hash', ''],
    ['a short hash', 'hash=abc'],
    ['limit 0', `hash=${'a'.repeat(64)}&limit=0`],
    ['limit 101', `hash=${'a'.repeat(64)}&limit=101`],
    ['a non-numeric limit', `hash=${'a'.repeat(64)}&limit=ten`],
    ['a forged cursor', `hash=${'a'.repeat(64)}&cursor=bm9wZQ`],
    ['an unknown parameter', `hash=${'a'.repeat(64)}&sort=asc`],
  ])('answers 400 VALIDATION_FAILED for %s', async (_, query) => {
    const res = await call(svc.url, 'GET', `/v1/attestations?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
  });
});

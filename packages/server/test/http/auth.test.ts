import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let valid: { key: string; prefix: string };
let revoked: { key: string; prefix: string };

beforeAll(async () => {
  svc = await startTestService();
  valid = await svc.createKey('pro');
  revoked = await svc.createKey('free');
  await svc.services.keys.revoke(revoked.prefix);
});
afterAll(() => svc?.stop());

const body = { type: 'human', content: 'auth test', contentType: 'text/plain', mode: 'offchain' };

function swapCase(text: string): string {
  return text.replace(/[a-z]/g, (c) => c.toUpperCase());
}

describe('API key authentication on gated routes', () => {
  it('accepts a valid key', async () => {
    const res = await call(svc.url, 'POST', '/v1/attestations', { key: valid.key, body });
    expect(res.status).toBe(201);
  });

  it('accepts the Bearer scheme in any case (RFC 7235)', async () => {
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      headers: { authorization: `bearer ${valid.key}` },
      body,
    });
    expect(res.status).toBe(201);
  });

  const cases: Array<[string, () => Record<string, string>, string]> = [
    ['no Authorization header', () => ({}), 'MISSING_API_KEY'],
    ['an empty Authorization header', () => ({ authorization: '' }), 'MISSING_API_KEY'],
    ['an empty Bearer', () => ({ authorization: 'Bearer ' }), 'MISSING_API_KEY'],
    ['Bearer alone', () => ({ authorization: 'Bearer' }), 'MISSING_API_KEY'],
    ['the key without the Bearer scheme', () => ({ authorization: valid.key }), 'INVALID_API_KEY'],
    [
      'the Basic scheme',
      () => ({ authorization: `Basic ${Buffer.from(valid.key).toString('base64')}` }),
      'INVALID_API_KEY',
    ],
    ['a bad lead', () => ({ authorization: `Bearer ${valid.key.replace('svc_', 'sk_')}` }), 'INVALID_API_KEY'],
    [
      'the wrong tier part',
      () => ({ authorization: `Bearer ${valid.key.replace('svc_pro_', 'svc_enterprise_')}` }),
      'INVALID_API_KEY',
    ],
    [
      'an unknown prefix',
      () => ({ authorization: `Bearer svc_pro_000000000000_${valid.key.slice(-32)}` }),
      'INVALID_API_KEY',
    ],
    [
      'a wrong secret',
      () => ({ authorization: `Bearer ${valid.key.slice(0, -32)}${'0'.repeat(32)}` }),
      'INVALID_API_KEY',
    ],
    ['a secret one character short', () => ({ authorization: `Bearer ${valid.key.slice(0, -1)}` }), 'INVALID_API_KEY'],
    ['extra whitespace before the key', () => ({ authorization: `Bearer  ${valid.key}` }), 'INVALID_API_KEY'],
    // HTTP strips whitespace around a header value, so the whitespace a client can send is inside it
    [
      'whitespace inside the key',
      () => ({ authorization: `Bearer ${valid.key.replace('_', ' _')}` }),
      'INVALID_API_KEY',
    ],
    ['the key in upper case', () => ({ authorization: `Bearer ${swapCase(valid.key)}` }), 'INVALID_API_KEY'],
    [
      'the secret in upper case',
      () => ({ authorization: `Bearer ${valid.key.slice(0, -32)}${swapCase(valid.key.slice(-32))}` }),
      'INVALID_API_KEY',
    ],
    ['a revoked key', () => ({ authorization: `Bearer ${revoked.key}` }), 'API_KEY_REVOKED'],
  ];

  it.each(cases)('answers 401 for %s', async (_, headers, code) => {
    const res = await call(svc.url, 'POST', '/v1/attestations', { headers: headers(), body });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code, message: expect.any(String), details: {} });
  });

  it('changes nothing when authentication fails', async () => {
    const hash = `0x${'ab'.repeat(32)}`;
    await call(svc.url, 'POST', '/v1/attestations', {
      headers: { authorization: `Bearer ${revoked.key}` },
      body: { ...body, content: undefined, contentHash: hash },
    });
    const search = await call(svc.url, 'GET', `/v1/attestations?hash=${hash}`);
    expect(search.body.data).toEqual([]);
  });

  it('answers 401 before looking at the body, so strangers learn nothing about the contract', async () => {
    const res = await call(svc.url, 'POST', '/v1/attestations', { body: { nonsense: true } });
    expect(res.body.code).toBe('MISSING_API_KEY');
  });

  it('authenticates /trpc calls with the same rules', async () => {
    const res = await call(svc.url, 'POST', '/trpc/attestations.create', {
      headers: { authorization: `Bearer ${revoked.key}` },
      body,
    });
    expect(res.status).toBe(401);
    expect(res.body.error.data.code).toBe('API_KEY_REVOKED');
    expect(JSON.stringify(res.body)).not.toContain('stack');
  });
});

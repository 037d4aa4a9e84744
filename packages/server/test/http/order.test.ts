import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
});
afterAll(() => svc?.stop());

const MIB = 1024 * 1024;
const json = { 'content-type': 'application/json' };

describe('REST authenticates and rate-limits before it reads a body (docs/decisions.md, "Input rules")', () => {
  it('anonymous POSTs with malformed or 1 MiB bodies are 401 and cost the address its bucket: the 31st is 429', async () => {
    const headers = { ...json, 'x-forwarded-for': '203.0.113.140' };
    for (let i = 0; i < 30; i++) {
      const rawBody = i % 2 === 0 ? '{"type": "human", broken' : `{"content":"${'x'.repeat(MIB)}"}`;
      const res = await call(svc.url, 'POST', '/v1/attestations', { headers, rawBody });
      expect(res).toMatchObject({ status: 401, body: { code: 'MISSING_API_KEY' } });
    }
    const limited = await call(svc.url, 'POST', '/v1/attestations', { headers, rawBody: '{"type": broken' });
    expect(limited).toMatchObject({ status: 429, body: { code: 'RATE_LIMITED', details: { limit: 30 } } });
    expect(limited.headers.get('retry-after')).toBeTruthy();
    // another address is untouched, and the service still answers on the same connections
    expect((await call(svc.url, 'GET', '/healthz')).status).toBe(200);
  });

  it('a keyed malformed body is still 400 INVALID_JSON, after authentication', async () => {
    const { key } = await svc.createKey();
    const res = await call(svc.url, 'POST', '/v1/attestations', { key, headers: json, rawBody: '{"type": "human",' });
    expect(res).toMatchObject({ status: 400, body: { code: 'INVALID_JSON', details: {} } });
    expect(res.headers.get('ratelimit')).toMatch(/^"key";r=29;/);
    const notObject = await call(svc.url, 'POST', '/v1/attestations', { key, headers: json, rawBody: '[1]' });
    expect(notObject).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    const wrongType = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      headers: { 'content-type': 'text/plain' },
      rawBody: 'hello',
    });
    expect(wrongType).toMatchObject({ status: 415, body: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });

  it('an oversize body with a bad key is 401, with a good key 413', async () => {
    const rawBody = `{"content":"${'x'.repeat(2 * MIB)}"}`;
    const bad = await call(svc.url, 'POST', '/v1/attestations', {
      key: `svc_free_000000000000_${'0'.repeat(32)}`,
      headers: json,
      rawBody,
    });
    expect(bad).toMatchObject({ status: 401, body: { code: 'INVALID_API_KEY' } });
    const { key } = await svc.createKey();
    const good = await call(svc.url, 'POST', '/v1/attestations', { key, headers: json, rawBody });
    expect(good).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE', details: { limitBytes: MIB } } });
  });

  it('path parameters still join the body', async () => {
    const { key } = await svc.createKey();
    const uid = `0x${'ab'.repeat(32)}`;
    const revoked = await call(svc.url, 'POST', `/v1/attestations/${uid}/revoke`, { key, body: { reason: 'test' } });
    expect(revoked).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    const empty = await call(svc.url, 'POST', `/v1/attestations/${uid}/revoke`, { key });
    expect(empty).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
  });
});

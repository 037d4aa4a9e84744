import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
});
afterAll(() => svc?.stop());

const body = { type: 'human', content: 'through trpc', contentType: 'text/plain', mode: 'offchain' };
/** The most calls one /trpc batch may carry (docs/decisions.md, "API surface"). */
const MAX_BATCH_CALLS = 10;

describe('/trpc takes JSON only', () => {
  it.each([
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="type"\r\n\r\nhuman\r\n--x--\r\n'],
    ['application/octet-stream', 'raw bytes'],
    ['text/plain', '{"type":"human"}'],
  ])('a mutation sent as %s is 415 UNSUPPORTED_MEDIA_TYPE in the tRPC envelope', async (contentType, rawBody) => {
    const { key } = await svc.createKey();
    const res = await call(svc.url, 'POST', '/trpc/attestations.create', {
      key,
      headers: { 'content-type': contentType },
      rawBody,
    });
    expect(res.status).toBe(415);
    expect(res.body.error.data).toEqual({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: expect.stringContaining('application/json'),
      details: { contentType },
      httpStatus: 415,
    });
  });
});

describe('/trpc batches', () => {
  it(`hold at most ${MAX_BATCH_CALLS} calls: more is one 400 with the cap in its details`, async () => {
    const paths = (n: number) => Array.from({ length: n }, () => 'system.health').join(',');
    const inputs = encodeURIComponent(
      JSON.stringify(Object.fromEntries(Array.from({ length: MAX_BATCH_CALLS + 1 }, (_, i) => [i, {}]))),
    );
    const within = await call(svc.url, 'GET', `/trpc/${paths(MAX_BATCH_CALLS)}?batch=1&input=${inputs}`);
    expect(within.status, JSON.stringify(within.body)).toBe(200);
    expect(within.body).toHaveLength(MAX_BATCH_CALLS);
    const over = await call(svc.url, 'GET', `/trpc/${paths(MAX_BATCH_CALLS + 1)}?batch=1&input=${inputs}`);
    expect(over.status).toBe(400);
    expect(over.body.error.data).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { maxBatchCalls: MAX_BATCH_CALLS, calls: MAX_BATCH_CALLS + 1 },
    });
  });
});

describe('/trpc answers carry the rate-limit fields', () => {
  it('on a keyed mutation, a keyed batch and an anonymous query', async () => {
    const { key } = await svc.createKey();
    const created = await call(svc.url, 'POST', '/trpc/attestations.create', { key, body });
    expect(created.status).toBe(200);
    expect(created.headers.get('ratelimit-policy')).toBe('"key";q=30;w=60');
    expect(created.headers.get('ratelimit')).toMatch(/^"key";r=29;t=\d+$/);
    const uid = created.body.result.data.uid;

    const input = encodeURIComponent(JSON.stringify({ 0: { uid }, 1: { uid } }));
    const batch = await call(svc.url, 'GET', `/trpc/attestations.get,attestations.get?batch=1&input=${input}`, { key });
    expect(batch.status).toBe(200);
    expect(batch.headers.get('ratelimit')).toMatch(/^"key";r=27;t=\d+$/);

    const anonymous = await call(
      svc.url,
      'GET',
      `/trpc/attestations.get?input=${encodeURIComponent(JSON.stringify({ uid }))}`,
    );
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('ratelimit-policy')).toBe('"ip";q=30;w=60');

    const refused = await call(svc.url, 'POST', '/trpc/attestations.create', {
      body,
      headers: { 'x-forwarded-for': '203.0.113.150' },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('ratelimit')).toMatch(/^"ip";r=29;t=\d+$/);
  });

  it('a streamed batch (application/jsonl), whose headers would leave before its calls run, is 406', async () => {
    const { key } = await svc.createKey();
    const input = encodeURIComponent(JSON.stringify({ 0: { hash: 'ab'.repeat(32) } }));
    const res = await call(svc.url, 'GET', `/trpc/attestations.search?batch=1&input=${input}`, {
      key,
      headers: { 'trpc-accept': 'application/jsonl' },
    });
    expect(res.status).toBe(406);
    expect(res.body.error.data).toMatchObject({ code: 'NOT_ACCEPTABLE', httpStatus: 406 });
  });
});

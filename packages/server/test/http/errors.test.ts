import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
  key = (await svc.createKey('pro')).key;
});
afterAll(() => svc?.stop());

const SPEC_BODY = { code: expect.any(String), message: expect.any(String), details: expect.any(Object) };

describe('every REST error is the API error body { code, message, details }', () => {
  it('404 NOT_FOUND for an unknown route', async () => {
    const res = await call(svc.url, 'GET', '/v1/nothing-here');
    expect(res).toMatchObject({ status: 404, body: { ...SPEC_BODY, code: 'NOT_FOUND' } });
  });

  it('405 METHOD_NOT_ALLOWED with an Allow header for a known path', async () => {
    const res = await call(svc.url, 'PUT', '/v1/attestations', { key, body: {} });
    expect(res).toMatchObject({ status: 405, body: { ...SPEC_BODY, code: 'METHOD_NOT_ALLOWED' } });
    expect(res.headers.get('allow')).toBe('POST, GET');
  });

  it('400 INVALID_JSON for a malformed body', async () => {
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      rawBody: '{"type": "human",',
      headers: { 'content-type': 'application/json' },
    });
    expect(res).toMatchObject({ status: 400, body: { ...SPEC_BODY, code: 'INVALID_JSON' } });
  });

  it('400 VALIDATION_FAILED for JSON that is not an object', async () => {
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      rawBody: '[1,2]',
      headers: { 'content-type': 'application/json' },
    });
    expect(res).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });

  it('415 UNSUPPORTED_MEDIA_TYPE for a body that is not application/json', async () => {
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      rawBody: 'type=human',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res).toMatchObject({ status: 415, body: { ...SPEC_BODY, code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });

  it('413 PAYLOAD_TOO_LARGE for a body over 1 MiB', async () => {
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', content: 'x'.repeat(1024 * 1024), contentType: 'text/plain', mode: 'offchain' },
    });
    expect(res).toMatchObject({ status: 413, body: { ...SPEC_BODY, code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('accepts a body just under 1 MiB', async () => {
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', content: 'x'.repeat(1024 * 1024 - 200), contentType: 'text/plain', mode: 'offchain' },
    });
    expect(res.status).toBe(201);
  });

  it('500 INTERNAL_ERROR without SQL, stack or internals when the database fails', async () => {
    const db = new pg.Client({ connectionString: svc.databaseUrl });
    await db.connect();
    // raw SQL on purpose: the fault is a table taken away, which no typed query can say
    await db.query('ALTER TABLE attestations RENAME TO attestations_gone');
    try {
      const res = await call(svc.url, 'GET', `/v1/attestations/0x${'22'.repeat(32)}`);
      expect(res).toMatchObject({ status: 500, body: { code: 'INTERNAL_ERROR', details: {} } });
      const text = JSON.stringify(res.body);
      for (const leak of ['attestations', 'SELECT', 'stack', 'at ', 'prisma', 'relation'])
        expect(text).not.toContain(leak);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    } finally {
      await db.query('ALTER TABLE attestations_gone RENAME TO attestations');
      await db.end();
    }
  });

  it('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const mine = await call(svc.url, 'GET', '/healthz', { headers: { 'x-request-id': 'req-123' } });
    expect(mine.headers.get('x-request-id')).toBe('req-123');
    const unsafe = await call(svc.url, 'GET', '/healthz', { headers: { 'x-request-id': 'a b<script>' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('health and readiness', () => {
  it('/healthz and /readyz answer 200 when all is well', async () => {
    expect(await call(svc.url, 'GET', '/healthz')).toMatchObject({
      status: 200,
      body: { status: 'ok', components: { chain: 'ok', relayer: 'ok' }, reasons: {} },
    });
    expect(await call(svc.url, 'GET', '/readyz')).toMatchObject({
      status: 200,
      body: { status: 'ready', components: { database: 'ok' } },
    });
  });

  it('/readyz answers 503 naming the failing component', async () => {
    const broken = await startTestService({ readiness: { replica: () => Promise.reject(new Error('replica down')) } });
    try {
      const res = await call(broken.url, 'GET', '/readyz');
      expect(res).toMatchObject({
        status: 503,
        body: {
          code: 'NOT_READY',
          details: { components: { database: 'ok', replica: 'unavailable' }, failing: ['replica'] },
        },
      });
      expect(JSON.stringify(res.body)).not.toContain('replica down');
    } finally {
      await broken.stop();
    }
  });
});

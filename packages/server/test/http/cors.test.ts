import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;
const APP = 'https://app.example.com';
const STRANGER = 'https://evil.example';

beforeAll(async () => {
  svc = await startTestService({ env: { CORS_ALLOWED_ORIGINS: `${APP}, http://localhost:5173` } });
  key = (await svc.createKey('pro')).key;
});
afterAll(() => svc?.stop());

const preflight = (path: string, origin: string, method = 'GET', headers = 'authorization') =>
  fetch(`${svc.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });

async function offchain(): Promise<string> {
  const body = { type: 'human', content: `cors ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' };
  return (await call(svc.url, 'POST', '/v1/attestations', { key, body })).body.uid;
}

describe('CORS: public reads', () => {
  it.each([
    '/v1/attestations/{uid}',
    '/v1/attestations?hash={hash}',
    '/v1/attestations/{uid}/credential',
    '/openapi.json',
  ])('%s answers any origin, preflight and read, exposing the request id', async (template) => {
    const uid = await offchain();
    const path = template.replace('{uid}', uid).replace('{hash}', 'ab'.repeat(32));
    const pre = await preflight(path, STRANGER);
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toContain('GET');
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expect(pre.headers.get('access-control-max-age')).toBe('86400');
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    const read = await fetch(`${svc.url}${path}`, { headers: { origin: STRANGER } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe('*');
    expect(read.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/);
  });

  it('a public tRPC query answers any origin; a batch with a gated procedure does not', async () => {
    const uid = await offchain();
    const input = encodeURIComponent(JSON.stringify({ uid }));
    const res = await fetch(`${svc.url}/trpc/attestations.get?input=${input}`, { headers: { origin: STRANGER } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect((await preflight('/trpc/attestations.get,attestations.create', STRANGER, 'POST')).status).toBe(403);
  });

  it('errors carry the header too, so a browser can read why', async () => {
    const res = await fetch(`${svc.url}/v1/attestations/0x12`, { headers: { origin: STRANGER } });
    expect(res.status).toBe(400);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('CORS: calls with a key', () => {
  it('answers an allowed origin by name, with Vary: Origin', async () => {
    const pre = await preflight('/v1/attestations', APP, 'POST', 'authorization, content-type, idempotency-key');
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(APP);
    expect(pre.headers.get('vary')).toMatch(/Origin/);
    const body = { type: 'ai', content: `cors ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' };
    const res = await call(svc.url, 'POST', '/v1/attestations', { key, body, headers: { origin: APP } });
    expect(res.status).toBe(201);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('refuses another origin: the preflight is 403 with the error body, the answer names no origin', async () => {
    const pre = await preflight('/v1/attestations', STRANGER, 'POST');
    expect(pre.status).toBe(403);
    expect(await pre.json()).toMatchObject({ code: 'FORBIDDEN', details: { origin: STRANGER } });
    const res = await call(svc.url, 'GET', '/v1/webhooks', { key, headers: { origin: STRANGER } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('content credentials (a raw-body route) follow the same rule', async () => {
    const uid = await offchain();
    const path = `/v1/attestations/${uid}/content-credentials`;
    expect(
      (await preflight(path, APP, 'POST', 'authorization, content-type')).headers.get('access-control-allow-origin'),
    ).toBe(APP);
    expect((await preflight(path, STRANGER, 'POST')).status).toBe(403);
  });

  it('the dashboard and sign-in never answer another origin', async () => {
    expect((await preflight('/api/auth/sign-in/email', APP, 'POST')).status).toBe(404);
    expect((await preflight('/trpc/dashboard.session.get', APP, 'GET')).status).toBe(404);
  });
});

describe('OPTIONS', () => {
  it('without a preflight is 204 with Allow; on an unknown path 404', async () => {
    const res = await fetch(`${svc.url}/v1/webhooks`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('POST, GET, OPTIONS');
    expect((await fetch(`${svc.url}/v1/nothing`, { method: 'OPTIONS' })).status).toBe(404);
  });
});

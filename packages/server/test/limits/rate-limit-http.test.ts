import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

const clock = manualClock(new Date('2026-11-22T10:00:00Z'));
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ clock });
});
afterAll(() => svc?.stop());

const body = { type: 'human', content: 'limited', contentType: 'text/plain', mode: 'offchain' };

describe('per-key rate limits (sliding minute, by tier)', () => {
  it('a free key: 30 calls pass with RateLimit fields, the 31st is 429 RATE_LIMITED with Retry-After', async () => {
    const { key } = await svc.createKey('free');
    for (let i = 0; i < 30; i++) {
      const res = await call(svc.url, 'POST', '/v1/attestations', { key, body });
      expect(res.status).toBe(201);
      expect(res.headers.get('ratelimit-policy')).toBe('"key";q=30;w=60');
      expect(res.headers.get('ratelimit')).toBe(`"key";r=${29 - i};t=60`);
    }
    const limited = await call(svc.url, 'POST', '/v1/attestations', { key, body });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      code: 'RATE_LIMITED',
      message: expect.stringContaining('30 per minute'),
      details: { limit: 30, windowSeconds: 60, retryAfterSeconds: 60, scope: 'key' },
    });
    expect(limited.headers.get('retry-after')).toBe('60');
    expect(limited.headers.get('ratelimit')).toBe('"key";r=0;t=60');

    clock.advance(60_000);
    expect((await call(svc.url, 'POST', '/v1/attestations', { key, body })).status).toBe(201);
  });

  it('limits GETs made with a key too, and keeps keys apart', async () => {
    const a = await svc.createKey('free');
    const b = await svc.createKey('free');
    for (let i = 0; i < 30; i++) await call(svc.url, 'GET', '/v1/webhooks', { key: a.key });
    expect((await call(svc.url, 'GET', '/v1/webhooks', { key: a.key })).status).toBe(429);
    expect((await call(svc.url, 'GET', '/v1/webhooks', { key: b.key })).status).not.toBe(429);
  });

  it('gives pro keys 600 and enterprise keys 6000 per minute', async () => {
    const pro = await svc.createKey('pro');
    const enterprise = await svc.createKey('enterprise');
    expect(
      (await call(svc.url, 'POST', '/v1/attestations', { key: pro.key, body })).headers.get('ratelimit-policy'),
    ).toBe('"key";q=600;w=60');
    expect(
      (await call(svc.url, 'POST', '/v1/attestations', { key: enterprise.key, body })).headers.get('ratelimit'),
    ).toBe('"key";r=5999;t=60');
  });
});

describe('public reads with a key', () => {
  it("count against the key's tier, not the caller's address, and a bad key is a 401, never a silent fallback", async () => {
    const pro = await svc.createKey('pro');
    const headers = { 'x-forwarded-for': '203.0.113.77' };
    const created = await call(svc.url, 'POST', '/v1/attestations', { key: pro.key, body });
    for (let i = 0; i < 30; i++) await call(svc.url, 'GET', `/v1/attestations/${created.body.uid}`, { headers });
    expect((await call(svc.url, 'GET', `/v1/attestations/${created.body.uid}`, { headers })).status).toBe(429);
    const read = await call(svc.url, 'GET', `/v1/attestations/${created.body.uid}`, { key: pro.key, headers });
    expect(read.status).toBe(200);
    expect(read.headers.get('ratelimit-policy')).toBe('"key";q=600;w=60');
    const wrongSecret = pro.key.slice(0, -1) + (pro.key.endsWith('0') ? '1' : '0');
    const wrong = await call(svc.url, 'GET', `/v1/attestations?hash=${'ab'.repeat(32)}`, { key: wrongSecret });
    expect(wrong).toMatchObject({ status: 401, body: { code: 'INVALID_API_KEY' } });
  });
});

describe('anonymous rate limits (per client IP)', () => {
  const hash = `0x${'cd'.repeat(32)}`;

  it('30 anonymous calls per IP, then 429; another IP has its own bucket', async () => {
    const ip = '203.0.113.10';
    for (let i = 0; i < 30; i++)
      expect(
        (await call(svc.url, 'GET', `/v1/attestations?hash=${hash}`, { headers: { 'x-forwarded-for': ip } })).status,
      ).toBe(200);
    const limited = await call(svc.url, 'GET', `/v1/attestations?hash=${hash}`, { headers: { 'x-forwarded-for': ip } });
    expect(limited).toMatchObject({ status: 429, body: { code: 'RATE_LIMITED', details: { limit: 30 } } });
    expect(limited.headers.get('ratelimit-policy')).toBe('"ip";q=30;w=60');
    expect(
      (await call(svc.url, 'GET', `/v1/attestations?hash=${hash}`, { headers: { 'x-forwarded-for': '203.0.113.11' } }))
        .status,
    ).toBe(200);
  });

  it('counts failed authentications against the IP, which slows key guessing', async () => {
    const ip = '203.0.113.20';
    const guess = `svc_free_000000000000_${'0'.repeat(32)}`;
    for (let i = 0; i < 30; i++)
      expect(
        (await call(svc.url, 'POST', '/v1/attestations', { key: guess, body, headers: { 'x-forwarded-for': ip } }))
          .status,
      ).toBe(401);
    expect(
      (await call(svc.url, 'POST', '/v1/attestations', { key: guess, body, headers: { 'x-forwarded-for': ip } })).body
        .code,
    ).toBe('RATE_LIMITED');
  });

  it('never limits /healthz and /readyz', async () => {
    const ip = '203.0.113.30';
    for (let i = 0; i < 40; i++)
      expect((await call(svc.url, 'GET', '/healthz', { headers: { 'x-forwarded-for': ip } })).status).toBe(200);
    expect((await call(svc.url, 'GET', '/readyz', { headers: { 'x-forwarded-for': ip } })).status).toBe(200);
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY is set', async () => {
    const direct = await startTestService({ env: { TRUST_PROXY: 'false' } });
    try {
      for (let i = 0; i < 30; i++)
        await call(direct.url, 'GET', `/v1/attestations?hash=${hash}`, {
          headers: { 'x-forwarded-for': `198.18.0.${i}` },
        });
      const res = await call(direct.url, 'GET', `/v1/attestations?hash=${hash}`, {
        headers: { 'x-forwarded-for': '198.18.1.1' },
      });
      expect(res.status).toBe(429);
    } finally {
      await direct.stop();
    }
  });
});

describe('limits through /trpc', () => {
  it('shares the same buckets as REST', async () => {
    const { key } = await svc.createKey('free');
    for (let i = 0; i < 30; i++) await call(svc.url, 'POST', '/v1/attestations', { key, body });
    const res = await call(svc.url, 'POST', '/trpc/attestations.create', { key, body });
    expect(res.status).toBe(429);
    expect(res.body.error.data).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 30 } });
    expect(res.headers.get('retry-after')).toBeTruthy();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock.ts';
import { createRateLimiter } from '../../src/limits/rate-limit.ts';
import { memoryWindowStore } from '../../src/limits/sliding-window.ts';
import { AppError } from '../../src/errors.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

const clock = manualClock(new Date('2026-11-22T10:00:00Z'));
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ clock });
});
afterAll(() => svc?.stop());

let seq = 0;
const freshAccount = () => `acct-rate-${process.pid}-${++seq}`;

describe("an account's per-minute ceiling (twice its tier's per-key rate, across all its keys)", () => {
  it('3 free keys of one free account make 60 calls a minute together, not 90; the 61st names the account', async () => {
    const account = freshAccount();
    const keys = await Promise.all([1, 2, 3].map(() => svc.createKey('free', account)));
    const statuses: number[] = [];
    for (let i = 0; i < 75; i++)
      statuses.push((await call(svc.url, 'GET', '/v1/webhooks', { key: keys[i % 3]!.key })).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    const limited = await call(svc.url, 'GET', '/v1/webhooks', { key: keys[0]!.key });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      code: 'RATE_LIMITED',
      message: expect.stringContaining("this account's keys together may make 60 per minute"),
      details: { limit: 60, windowSeconds: 60, retryAfterSeconds: 60, scope: 'account' },
    });
    expect(limited.headers.get('ratelimit-policy')).toBe('"account";q=60;w=60');
    expect(limited.headers.get('retry-after')).toBe('60');
    // another account's keys are not held by it
    const other = await svc.createKey('free', freshAccount());
    expect((await call(svc.url, 'GET', '/v1/webhooks', { key: other.key })).status).toBe(200);
    clock.advance(60_000);
    expect((await call(svc.url, 'GET', '/v1/webhooks', { key: keys[1]!.key })).status).toBe(200);
  });

  it("one key alone meets its own limit first: the refusal names the key and the account's window is spared", async () => {
    const account = freshAccount();
    const [a, b] = [await svc.createKey('free', account), await svc.createKey('free', account)];
    for (let i = 0; i < 30; i++) expect((await call(svc.url, 'GET', '/v1/webhooks', { key: a.key })).status).toBe(200);
    const limited = await call(svc.url, 'GET', '/v1/webhooks', { key: a.key });
    expect(limited.body.details).toMatchObject({ limit: 30, scope: 'key' });
    for (let i = 0; i < 30; i++) expect((await call(svc.url, 'GET', '/v1/webhooks', { key: b.key })).status).toBe(200);
    expect((await call(svc.url, 'GET', '/v1/webhooks', { key: b.key })).body.details).toMatchObject({ scope: 'key' });
  });
});

describe('the rate limiter', () => {
  it("takes the ceiling from the account's tier, and counts the key first", async () => {
    const limiter = createRateLimiter(memoryWindowStore(), manualClock(new Date('2026-11-22T10:00:00Z')));
    const account = { accountId: 'acct-1', accountTier: 'pro' as const };
    for (let i = 0; i < 1200; i++) await limiter.forKey(`k${i % 3}`, 'pro', account);
    const error = await limiter.forKey('k4', 'pro', account).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).details).toMatchObject({ limit: 1200, scope: 'account' });
    const ip = await limiter.forIp('203.0.113.1');
    expect(ip['RateLimit-Policy']).toBe('"ip";q=30;w=60');
  });
});

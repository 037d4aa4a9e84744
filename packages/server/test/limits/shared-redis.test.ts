import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../support/redis.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

let redis: TestRedis;
let first: TestService;
let second: TestService;

beforeAll(async () => {
  redis = await startTestRedis();
  const REDIS_URL = redis.url;
  first = await startTestService({ env: { REDIS_URL } });
  second = await startTestService({ env: { REDIS_URL, DATABASE_URL: first.databaseUrl } });
});
afterAll(async () => {
  await second?.stop();
  await first?.stop();
  await redis?.stop();
});

describe('two instances sharing one Redis', () => {
  it('enforce one limit together: 30 calls spread over both pass, the 31st on either is refused', async () => {
    const { key } = await first.createKey('free');
    const body = { type: 'ai', content: 'shared window', contentType: 'text/plain', mode: 'offchain' };
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(i % 2 ? first.url : second.url, 'POST', '/v1/attestations', { key, body }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(201));
    expect((await call(first.url, 'POST', '/v1/attestations', { key, body })).status).toBe(429);
    expect((await call(second.url, 'POST', '/v1/attestations', { key, body })).body.code).toBe('RATE_LIMITED');
  });

  it('report Redis in readiness', async () => {
    expect(await call(second.url, 'GET', '/readyz')).toMatchObject({
      status: 200,
      body: { components: { database: 'ok', redis: 'ok' } },
    });
  });
});

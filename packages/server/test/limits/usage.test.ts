import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
});
afterAll(() => svc?.stop());

const usage = (key?: string) => call(svc.url, 'GET', '/v1/usage', { key });

describe('GET /v1/usage', () => {
  it("answers the key's and its account's windows and quotas, this call counted", async () => {
    const { key, prefix, account } = await svc.createKey('pro');
    const first = await usage(key);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      key: {
        prefix,
        tier: 'pro',
        rate: { limit: 600, remaining: 599, windowSeconds: 60 },
        onchain: { used: 0, limit: 2000, remaining: 2000, period: expect.stringMatching(/^\d{4}-\d{2}$/) },
      },
      account: { name: account, rate: { remaining: expect.any(Number) }, onchain: { used: 0 } },
    });
    expect(first.body.key.onchain.resetsAt).toBe(
      Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1),
    );
    const second = await usage(key);
    expect(second.body.key.rate.remaining).toBe(598);
    expect(second.headers.get('ratelimit')).toBe(`"key";r=598;t=${second.body.key.rate.resetsInSeconds}`);
  });

  it('counts on-chain use of the key and of its account, and says when the quota is spent', async () => {
    const { key, prefix } = await svc.createKey('free');
    await svc.chargeQuota(prefix, 20);
    const { body } = await usage(key);
    expect(body.key.onchain).toMatchObject({ used: 20, limit: 20, remaining: 0 });
    expect(body.account.onchain.used).toBe(20);
  });

  it('says null for an unlimited quota', async () => {
    const { key } = await svc.createKey('enterprise');
    const { body } = await usage(key);
    expect(body.key.onchain).toMatchObject({ limit: null, remaining: null });
    expect(body.key.rate.limit).toBe(6000);
  });

  it("shows a key only its own account's figures", async () => {
    const a = await svc.createKey('pro');
    const b = await svc.createKey('pro');
    await svc.chargeQuota(a.prefix, 7);
    expect((await usage(b.key)).body.account.onchain.used).toBe(0);
    expect((await usage(b.key)).body.account.name).toBe(b.account);
  });

  it('is 401 without a key, and 400 for a parameter it does not know', async () => {
    expect((await usage()).status).toBe(401);
    const { key } = await svc.createKey('pro');
    expect((await call(svc.url, 'GET', '/v1/usage?tier=enterprise', { key })).status).toBe(400);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock.ts';
import { signIn, startDashboardService } from '../dashboard/support.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

const clock = manualClock(new Date('2026-11-22T10:00:00Z'));
const read = `/v1/attestations?hash=0x${'ef'.repeat(32)}`;
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ clock, worker: false });
});
afterAll(() => svc?.stop());

/** The statuses of anonymous reads, one from each address (X-Forwarded-For: the test service trusts one proxy). */
async function readsFrom(base: string, addresses: string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const address of addresses)
    statuses.push((await call(base, 'GET', read, { headers: { 'x-forwarded-for': address } })).status);
  return statuses;
}

const inNetwork = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}:${(i + 1).toString(16)}:0:0:${(i * 7 + 1).toString(16)}`);

describe('anonymous limits count an IPv6 client by its /64', () => {
  it('45 reads from 45 addresses of one /64 meet 429 after 30, as one address does', async () => {
    const statuses = await readsFrom(svc.url, inNetwork('2001:db8:aa:1', 45));
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
    const one = await readsFrom(
      svc.url,
      Array.from({ length: 31 }, () => '2001:db8:aa:2::5'),
    );
    expect(one.indexOf(429)).toBe(30);
  });

  it('keeps two /64s apart, and IPv4 addresses by address', async () => {
    await readsFrom(svc.url, inNetwork('2001:db8:bb:1', 30));
    expect(await readsFrom(svc.url, ['2001:db8:bb:1::ff'])).toEqual([429]);
    expect(await readsFrom(svc.url, ['2001:db8:bb:2::ff'])).toEqual([200]);
    await readsFrom(
      svc.url,
      Array.from({ length: 30 }, () => '203.0.113.90'),
    );
    expect(await readsFrom(svc.url, ['203.0.113.90'])).toEqual([429]);
    expect(await readsFrom(svc.url, ['203.0.113.91'])).toEqual([200]);
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', async () => {
    await readsFrom(
      svc.url,
      Array.from({ length: 30 }, () => '203.0.113.95'),
    );
    expect(await readsFrom(svc.url, ['::ffff:203.0.113.95'])).toEqual([429]);
  });
});

describe('RATE_LIMIT_IPV6_PREFIX', () => {
  it('sets the prefix: at 128 each address has its own bucket, at 48 a /48 shares one', async () => {
    const exact = await startTestService({ clock, worker: false, env: { RATE_LIMIT_IPV6_PREFIX: '128' } });
    const wide = await startTestService({ clock, worker: false, env: { RATE_LIMIT_IPV6_PREFIX: '48' } });
    try {
      expect((await readsFrom(exact.url, inNetwork('2001:db8:cc:1', 31))).includes(429)).toBe(false);
      const spread = Array.from({ length: 31 }, (_, i) => `2001:db8:dd:${(i + 1).toString(16)}::1`);
      expect((await readsFrom(wide.url, spread)).indexOf(429)).toBe(30);
    } finally {
      await Promise.all([exact.stop(), wide.stop()]);
    }
  });

  it('is refused outside 32–128', async () => {
    await expect(startTestService({ worker: false, env: { RATE_LIMIT_IPV6_PREFIX: '16' } })).rejects.toThrow(
      /RATE_LIMIT_IPV6_PREFIX/,
    );
  });
});

describe('dashboard sign-in limits count an IPv6 client by its /64', () => {
  it('the sixth sign-in from a sixth address of one /64 is 429', async () => {
    const dash = await startDashboardService();
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const user = { email: `nobody-${i}@example.com`, password: 'wrong-password-x' };
        statuses.push((await signIn(dash, user, { 'x-forwarded-for': `2001:db8:ee:1::${i + 1}` })).status);
      }
      expect(statuses.slice(0, 5).every((s) => s === 401)).toBe(true);
      expect(statuses[5]).toBe(429);
      const other = await signIn(
        dash,
        { email: 'nobody@example.com', password: 'wrong-password-x' },
        {
          'x-forwarded-for': '2001:db8:ee:2::1',
        },
      );
      expect(other.status).toBe(401);
    } finally {
      await dash.stop();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock.ts';
import { createDatabase, inTransaction, type Db } from '../../src/db/database.ts';
import { createPool, type Pool } from '../../src/db/sql.ts';
import type { AppError } from '../../src/errors.ts';
import {
  onchainUsage,
  periodOf,
  releaseOnchainQuota,
  reserveOnchainQuota,
  resetsAtOf,
} from '../../src/limits/quota.ts';
import { refusal } from '../support/refusal.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let pool: Pool;
let db: Db;

beforeAll(async () => {
  svc = await startTestService();
  pool = createPool(svc.databaseUrl, 20);
  db = createDatabase(pool);
});
afterAll(async () => {
  await pool?.end();
  await svc?.stop();
});

async function keyOf(tier: 'free' | 'pro' | 'enterprise') {
  const { prefix } = await svc.createKey(tier);
  const row = await db
    .selectFrom('apiKeys')
    .select(['id', 'accountId'])
    .where('prefix', '=', prefix)
    .executeTakeFirstOrThrow();
  // a key the CLI minted lifts its account's tier to its own (keys/service.ts, accountTierOf)
  return { keyId: row.id, accountId: row.accountId, tier, accountTier: tier };
}

describe('monthly on-chain quota periods (UTC calendar months)', () => {
  it.each([
    ['2026-11-30T23:59:59.999Z', '2026-11', '2026-12-01T00:00:00.000Z'],
    ['2026-12-01T00:00:00.000Z', '2026-12', '2027-01-01T00:00:00.000Z'],
    ['2026-12-31T23:59:59.999Z', '2026-12', '2027-01-01T00:00:00.000Z'],
    ['2028-02-29T12:00:00.000Z', '2028-02', '2028-03-01T00:00:00.000Z'],
  ])('%s is in %s and resets at %s', (at, period, resets) => {
    expect(periodOf(Date.parse(at))).toBe(period);
    expect(resetsAtOf(Date.parse(at))).toBe(Date.parse(resets));
  });
});

describe('reserving on-chain quota', () => {
  it('a free key gets exactly 20 a month; the 21st is 429 QUOTA_EXCEEDED with the documented details', async () => {
    const clock = manualClock(new Date('2026-11-15T12:00:00Z'));
    const key = await keyOf('free');
    for (let i = 0; i < 20; i++) await reserveOnchainQuota(db, clock, key, 1);
    const error = await refusal(reserveOnchainQuota(db, clock, key, 1));
    expect(error.errorCode).toBe('QUOTA_EXCEEDED');
    expect(error.status).toBe(429);
    expect(error.details).toEqual({
      tier: 'free',
      kind: 'onchain',
      used: 20,
      limit: 20,
      resetsAt: Date.parse('2026-12-01T00:00:00Z'),
      scope: 'key',
    });
    expect(error.message).toMatch(/free tier.*monthly on-chain quota is exhausted/);
  });

  it('resets at the first millisecond of the next UTC month, not a moment before', async () => {
    const clock = manualClock(new Date('2026-11-30T23:59:59.998Z'));
    const key = await keyOf('free');
    await reserveOnchainQuota(db, clock, key, 20);
    clock.advance(1); // 23:59:59.999
    await refusal(reserveOnchainQuota(db, clock, key, 1));
    clock.advance(1); // 2026-12-01T00:00:00.000Z
    await expect(reserveOnchainQuota(db, clock, key, 20)).resolves.toEqual({ period: '2026-12', count: 20 });
  });

  it('a batch reserves all of its items or none', async () => {
    const clock = manualClock(new Date('2026-11-10T00:00:00Z'));
    const key = await keyOf('free');
    await reserveOnchainQuota(db, clock, key, 15);
    const error = await refusal(reserveOnchainQuota(db, clock, key, 6));
    expect(error.details).toMatchObject({ used: 15, limit: 20 });
    expect((await onchainUsage(db, clock, key)).used).toBe(15);
    await reserveOnchainQuota(db, clock, key, 5);
    expect((await onchainUsage(db, clock, key)).used).toBe(20);
  });

  it('a refused batch says how many were asked for and how many are left, and when the quota resets', async () => {
    const clock = manualClock(new Date('2026-11-10T00:00:00Z'));
    const key = await keyOf('free');
    await reserveOnchainQuota(db, clock, key, 2);
    const error = await refusal(reserveOnchainQuota(db, clock, key, 19));
    expect(error.message).toBe(
      "The free tier's monthly on-chain quota cannot cover this batch: 19 asked, 18 left (2 of 20 used). " +
        'It resets at 2026-12-01T00:00:00.000Z. Off-chain attestations are not metered.',
    );
    await reserveOnchainQuota(db, clock, key, 18);
    const exhausted = await refusal(reserveOnchainQuota(db, clock, key, 1));
    expect(exhausted.message).toMatch(
      /^The free tier's monthly on-chain quota is exhausted: 1 asked, 0 left \(20 of 20 used\)\./,
    );
  });

  it('50 concurrent reservations with 20 left: exactly 20 succeed and 30 are refused with used 20', async () => {
    const clock = manualClock(new Date('2026-11-20T00:00:00Z'));
    const key = await keyOf('free');
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => inTransaction(db, (tx) => reserveOnchainQuota(tx, clock, key, 1))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(20);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(30);
    for (const r of refused) expect((r.reason as AppError).details).toMatchObject({ used: 20, limit: 20 });
  });

  it('a reservation rolled back with its transaction, or released after a failed send, is given back', async () => {
    const clock = manualClock(new Date('2026-11-20T00:00:00Z'));
    const key = await keyOf('free');
    await inTransaction(db, async (tx) => {
      await reserveOnchainQuota(tx, clock, key, 5);
      throw new Error('store failed');
    }).catch(() => undefined);
    expect((await onchainUsage(db, clock, key)).used).toBe(0);
    const reservation = await reserveOnchainQuota(db, clock, key, 3);
    await releaseOnchainQuota(db, key, reservation);
    expect((await onchainUsage(db, clock, key)).used).toBe(0);
  });

  it('gives pro 2000 and enterprise no limit', async () => {
    const clock = manualClock(new Date('2026-11-20T00:00:00Z'));
    const pro = await keyOf('pro');
    await reserveOnchainQuota(db, clock, pro, 2000);
    expect((await refusal(reserveOnchainQuota(db, clock, pro, 1))).details).toMatchObject({
      tier: 'pro',
      used: 2000,
      limit: 2000,
    });
    const enterprise = await keyOf('enterprise');
    await reserveOnchainQuota(db, clock, enterprise, 1_000_000);
    await expect(reserveOnchainQuota(db, clock, enterprise, 1)).resolves.toBeDefined();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failItems } from '../../src/attestations/relay-store.ts';
import { manualClock } from '../../src/clock.ts';
import { createDatabase, inTransaction, type Db } from '../../src/db/database.ts';
import { createPool, type Pool } from '../../src/db/sql.ts';
import type { Tier } from '../../src/keys/format.ts';
import { accountTierOf } from '../../src/keys/service.ts';
import {
  accountOnchainUsage,
  onchainUsage,
  periodOf,
  releaseOnchainQuota,
  reserveOnchainQuota,
  type QuotaHolder,
} from '../../src/limits/quota.ts';
import { refusal } from '../support/refusal.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let pool: Pool;
let db: Db;

beforeAll(async () => {
  svc = await startTestService({ env: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' } });
  pool = createPool(svc.databaseUrl, 20);
  db = createDatabase(pool);
});
afterAll(async () => {
  await pool?.end();
  await svc?.stop();
});

let seq = 0;
const freshAccount = () => `acct-quota-${process.pid}-${++seq}`;

/** A key minted in `account`, as the quota sees it, with the account's tier given as the members' plan would set it. */
async function holderOf(tier: Tier, account: string, accountTier: Tier): Promise<QuotaHolder> {
  const { prefix } = await svc.createKey(tier, account);
  const row = await db
    .selectFrom('apiKeys')
    .select(['id', 'accountId'])
    .where('prefix', '=', prefix)
    .executeTakeFirstOrThrow();
  return { keyId: row.id, accountId: row.accountId, tier, accountTier };
}

const body = () => ({ type: 'human', content: `account quota ${Math.random()}`, contentType: 'text/plain' });

describe('the account-wide on-chain quota (its plan across all its keys)', () => {
  it("40 concurrent on-chain creates over 4 free keys of a free account: exactly 20 succeed, 20 are refused naming the account's limit", async () => {
    const account = freshAccount();
    const keys = await Promise.all(Array.from({ length: 4 }, () => svc.createKey('free', account)));
    // a 503 (the chain probe late on a busy machine) charged nothing and is retried, as the SDK retries it
    const create = async (key: string) => {
      for (let attempt = 0; ; attempt++) {
        const res = await call(svc.url, 'POST', '/v1/attestations', { key, body: body() });
        if (res.status !== 503 || attempt === 5) return res;
        await new Promise((r) => setTimeout(r, 500));
      }
    };
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => create(keys[i % 4]!.key)));
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 429);
    expect(created).toHaveLength(20);
    expect(refused, JSON.stringify(results.filter((r) => r.status !== 201).map((r) => r.body))).toHaveLength(20);
    for (const r of refused)
      expect(r.body).toMatchObject({
        code: 'QUOTA_EXCEEDED',
        message: expect.stringContaining("account's free plan"),
        details: { tier: 'free', kind: 'onchain', used: 20, limit: 20, scope: 'account', resetsAt: expect.any(Number) },
      });
    const { id: accountId } = await svc.db
      .selectFrom('accounts')
      .select('id')
      .where('name', '=', account)
      .executeTakeFirstOrThrow();
    const used = (rows: Array<{ onchainUsed: number }>) => rows.reduce((sum, row) => sum + row.onchainUsed, 0);
    const accountRows = await svc.db
      .selectFrom('accountMonthlyUsage')
      .select('onchainUsed')
      .where('accountId', '=', accountId)
      .execute();
    const keyRows = await svc.db
      .selectFrom('monthlyUsage')
      .innerJoin('apiKeys', 'apiKeys.id', 'monthlyUsage.apiKeyId')
      .select('monthlyUsage.onchainUsed')
      .where('apiKeys.accountId', '=', accountId)
      .execute();
    expect({ account: used(accountRows), keys: used(keyRows) }).toEqual({ account: 20, keys: 20 });
    // the dashboard's overview shows the account's total against its plan beside each key's use
    const overview = await svc.services.overview.get({ accountId, plan: 'free' });
    expect(overview.account).toEqual({ tier: 'free', used: 20, quota: 20 });
    expect(overview.keys.reduce((sum, key) => sum + key.used, 0)).toBe(20);
    // a fifth key minted now gets nothing either: the account, not the key, is out of quota
    const fifth = await svc.createKey('free', account);
    expect((await call(svc.url, 'POST', '/v1/attestations', { key: fifth.key, body: body() })).status).toBe(429);
    const offchain = { ...body(), mode: 'offchain' };
    expect((await call(svc.url, 'POST', '/v1/attestations', { key: fifth.key, body: offchain })).status).toBe(201);
  }, 120_000);

  it('40 concurrent reservations over 4 keys of one free account: exactly 20 are granted', async () => {
    const clock = manualClock(new Date('2026-11-20T00:00:00Z'));
    const account = freshAccount();
    const holders = await Promise.all(Array.from({ length: 4 }, () => holderOf('free', account, 'free')));
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        inTransaction(db, (tx) => reserveOnchainQuota(tx, clock, holders[i % 4]!, 1)),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(20);
    expect(await accountOnchainUsage(db, holders[0]!.accountId, '2026-11')).toBe(20);
  });

  it("still holds each key to its tier's limit in an account with room, and a key's refusal takes nothing", async () => {
    const clock = manualClock(new Date('2026-11-20T00:00:00Z'));
    const account = freshAccount();
    const [a, b] = [await holderOf('free', account, 'pro'), await holderOf('free', account, 'pro')];
    await reserveOnchainQuota(db, clock, a, 20);
    const error = await refusal(reserveOnchainQuota(db, clock, a, 1));
    expect(error.details).toMatchObject({ tier: 'free', used: 20, limit: 20, scope: 'key' });
    expect(error.message).toMatch(/^The free tier's monthly on-chain quota is exhausted/);
    expect(await accountOnchainUsage(db, a.accountId, '2026-11')).toBe(20);
    await reserveOnchainQuota(db, clock, b, 20);
    expect(await accountOnchainUsage(db, a.accountId, '2026-11')).toBe(40);
  });

  it('names the key when both limits bind (the per-key rule comes first)', async () => {
    const clock = manualClock(new Date('2026-11-20T00:00:00Z'));
    const key = await holderOf('free', freshAccount(), 'free');
    await reserveOnchainQuota(db, clock, key, 20);
    expect((await refusal(reserveOnchainQuota(db, clock, key, 1))).details).toMatchObject({ scope: 'key' });
  });

  it("a batch reserves all of its items or none against the account's room", async () => {
    const clock = manualClock(new Date('2026-11-20T00:00:00Z'));
    const account = freshAccount();
    const [a, b] = [await holderOf('free', account, 'free'), await holderOf('free', account, 'free')];
    await reserveOnchainQuota(db, clock, a, 15);
    const error = await refusal(reserveOnchainQuota(db, clock, b, 6));
    expect(error.details).toMatchObject({ tier: 'free', used: 15, limit: 20, scope: 'account' });
    expect(error.message).toContain('cannot cover this batch: 6 asked, 5 left');
    expect((await onchainUsage(db, clock, b)).used).toBe(0);
    await reserveOnchainQuota(db, clock, b, 5);
    expect(await accountOnchainUsage(db, a.accountId, '2026-11')).toBe(20);
  });

  it('a batch larger than the plan allows is refused without a write', async () => {
    const clock = manualClock(new Date('2026-11-20T00:00:00Z'));
    const key = await holderOf('pro', freshAccount(), 'free');
    const error = await refusal(reserveOnchainQuota(db, clock, key, 21));
    expect(error.details).toMatchObject({ tier: 'free', used: 0, limit: 20, scope: 'account' });
    expect(await accountOnchainUsage(db, key.accountId, '2026-11')).toBe(0);
  });

  it('a give-back after a failed transaction returns both the key’s and the account’s counts', async () => {
    const clock = manualClock(new Date('2026-11-20T00:00:00Z'));
    const key = await holderOf('free', freshAccount(), 'free');
    const reservation = await reserveOnchainQuota(db, clock, key, 7);
    await releaseOnchainQuota(db, key, reservation);
    expect((await onchainUsage(db, clock, key)).used).toBe(0);
    expect(await accountOnchainUsage(db, key.accountId, '2026-11')).toBe(0);
    await inTransaction(db, async (tx) => {
      await reserveOnchainQuota(tx, clock, key, 5);
      throw new Error('store failed');
    }).catch(() => undefined);
    expect(await accountOnchainUsage(db, key.accountId, '2026-11')).toBe(0);
  });
});

describe('giving back after a definitive failure', () => {
  it("a failed relay transaction returns its items' quota to every key and to their account", async () => {
    const clock = manualClock(new Date());
    const account = freshAccount();
    const [a, b] = [await holderOf('free', account, 'free'), await holderOf('free', account, 'free')];
    const journal = await db
      .insertInto('relayTransactions')
      .values({ kind: 'attest', status: 'failed' })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const [holder, count] of [
      [a, 3],
      [b, 2],
    ] as const) {
      const { period } = await reserveOnchainQuota(db, clock, holder, count);
      const item = {
        accountId: holder.accountId,
        apiKeyId: holder.keyId,
        type: 'human',
        mode: 'onchain',
        status: 'pending',
        contentHash: `0x${'a'.repeat(64)}`,
        contentType: 'text/plain',
        chainId: 31337,
        schemaUid: `0x${'b'.repeat(64)}`,
        attester: `0x${'c'.repeat(40)}`,
        quotaPeriod: period,
        relayTxId: journal.id,
      };
      await db.insertInto('attestations').values(Array(count).fill(item)).execute();
    }
    const period = periodOf(clock.now());
    expect(await accountOnchainUsage(db, a.accountId, period)).toBe(5);
    await failItems(db, journal.id, 'reverted');
    expect(await accountOnchainUsage(db, a.accountId, period)).toBe(0);
    expect((await onchainUsage(db, clock, a)).used).toBe(0);
    expect((await onchainUsage(db, clock, b)).used).toBe(0);
  });
});

describe("an account's tier", () => {
  it("is its plan for members' keys, and the operator's key tier when the CLI minted one above the plan", () => {
    expect(accountTierOf('free', { tier: 'free', createdBy: 'user-1' })).toBe('free');
    expect(accountTierOf('free', { tier: 'pro', createdBy: 'user-1' })).toBe('free');
    expect(accountTierOf('free', { tier: 'pro', createdBy: null })).toBe('pro');
    expect(accountTierOf('pro', { tier: 'free', createdBy: null })).toBe('pro');
    expect(accountTierOf('gold', { tier: 'free', createdBy: 'user-1' })).toBe('free');
  });
});

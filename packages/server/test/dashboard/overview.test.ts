import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock.ts';
import { createDatabase } from '../../src/db/database.ts';
import type { Pool } from '../../src/db/sql.ts';
import { dailyAttestations } from '../../src/overview/store.ts';
import { insertDelivery, insertSubscription } from '../support/db.ts';
import type { TestService } from '../support/service.ts';
import { createMember, startDashboardService, trpc, type TestMember } from './support.ts';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const DAY = 86_400_000;
const clock = manualClock(NOW);

describe('dashboard overview', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startDashboardService({ clock });
  }, 60_000);
  afterAll(() => service?.stop());

  const overview = (member: TestMember, accountId = member.accountId) =>
    trpc(service, 'dashboard.overview.get', { cookie: member.cookie, accountId });

  let keySeq = 0;
  /** A key of the account, straight into the table (tiers above the plan too). */
  async function key(accountId: string, tier: string, revoked = false): Promise<{ id: string; prefix: string }> {
    const id = randomUUID();
    const prefix = randomUUID().replaceAll('-', '').slice(0, 12);
    // created_at keeps milliseconds: keys made within one would tie, and the list's order would be the ids' chance
    const now = Date.now();
    await service.db
      .insertInto('apiKeys')
      .values({
        id,
        accountId,
        prefix,
        secretHash: Buffer.from([0]),
        tier,
        name: `${tier} key`,
        revokedAt: revoked ? new Date(now) : null,
        createdAt: new Date(now + ++keySeq),
      })
      .execute();
    return { id, prefix };
  }
  const use = (apiKeyId: string, period: string, onchainUsed: number) =>
    service.db.insertInto('monthlyUsage').values({ apiKeyId, period, onchainUsed }).execute();

  /** `count` attestations from `at` on, a second apart (insert in time order: ids grow with time, as in production). */
  async function attestations(
    target: { accountId: string; keyId: string },
    count: number,
    at: number,
    kind: { type: 'human' | 'ai'; mode: 'onchain' | 'offchain'; status?: string },
  ) {
    const row = (i: number) => ({
      accountId: target.accountId,
      apiKeyId: target.keyId,
      ...kind,
      status: kind.status ?? 'confirmed',
      contentHash: `0x${'a'.repeat(64)}`,
      contentType: 'text/plain',
      chainId: 31337,
      schemaUid: `0x${'b'.repeat(64)}`,
      attester: `0x${'c'.repeat(40)}`,
      createdAt: new Date(at + i * 1_000),
    });
    // in statements of 4000 rows: PostgreSQL takes at most 65535 parameters in one
    for (let from = 0; from < count; from += 4000) {
      const rows = Array.from({ length: Math.min(4000, count - from) }, (_, i) => row(from + i));
      await service.db.insertInto('attestations').values(rows).execute();
    }
  }

  /** Deliveries of one subscription of the account, made at `at`, in the states given. */
  async function deliveries(accountId: string, at: number, states: Array<{ state: string; attempts: number }>) {
    const subscriptionId = await insertSubscription(service.db, accountId, new Date(at - DAY));
    for (const { state, attempts } of states)
      await insertDelivery(service.db, { accountId, subscriptionId, state, attempts, createdAt: new Date(at) });
  }

  it("shows this month's use per key against its quota, 30 days of attestations and 7 of deliveries", async () => {
    const viewer = await createMember(service, 'viewer');
    const other = await createMember(service, 'owner');
    const { accountId } = viewer;
    const free = await key(accountId, 'free');
    const enterprise = await key(accountId, 'enterprise');
    const revokedUsed = await key(accountId, 'pro', true);
    await key(accountId, 'free', true); // revoked, unused this month: not shown
    await use(free.id, '2026-11', 7);
    await use(free.id, '2026-10', 15);
    await use(revokedUsed.id, '2026-11', 3);

    const mine = { accountId, keyId: free.id };
    await attestations(mine, 50, NOW - 40 * DAY, { type: 'human', mode: 'offchain' }); // before the window
    await attestations(mine, 2, Date.parse('2026-10-22T00:00:30Z'), { type: 'human', mode: 'offchain' });
    await attestations(mine, 3, Date.parse('2026-11-19T23:59:00Z'), { type: 'ai', mode: 'onchain' });
    await attestations(mine, 1, Date.parse('2026-11-19T23:59:30Z'), { type: 'ai', mode: 'onchain', status: 'failed' });
    await attestations(mine, 4, Date.parse('2026-11-20T10:00:00Z'), { type: 'ai', mode: 'offchain' });
    await attestations(mine, 5, Date.parse('2026-11-20T10:01:00Z'), {
      type: 'human',
      mode: 'onchain',
      status: 'pending',
    });
    const otherKey = await key(other.accountId, 'free');
    await attestations({ accountId: other.accountId, keyId: otherKey.id }, 6, NOW - 3_600_000, {
      type: 'human',
      mode: 'offchain',
    });

    await deliveries(accountId, Date.parse('2026-11-20T09:00:00Z'), [
      { state: 'completed', attempts: 1 },
      { state: 'completed', attempts: 3 },
      { state: 'dead', attempts: 5 },
      { state: 'pending', attempts: 1 },
      { state: 'pending', attempts: 0 }, // not yet tried: no outcome
      { state: 'dropped', attempts: 0 },
    ]);
    await deliveries(accountId, Date.parse('2026-11-17T09:00:00Z'), [{ state: 'completed', attempts: 1 }]);
    await deliveries(accountId, Date.parse('2026-11-13T09:00:00Z'), [{ state: 'completed', attempts: 1 }]);
    await deliveries(other.accountId, NOW - 3_600_000, [{ state: 'dead', attempts: 5 }]);

    const res = await overview(viewer);
    expect(res.status).toBe(200);
    const data = res.body.result.data;
    expect(data).toMatchObject({ period: '2026-11', resetsAt: '2026-12-01T00:00:00.000Z', plan: 'free' });
    expect(data.keys).toEqual([
      { prefix: free.prefix, name: 'free key', tier: 'free', used: 7, quota: 20, revokedAt: null },
      { prefix: enterprise.prefix, name: 'enterprise key', tier: 'enterprise', used: 0, quota: null, revokedAt: null },
      { prefix: revokedUsed.prefix, name: 'pro key', tier: 'pro', used: 3, quota: 2000, revokedAt: expect.any(String) },
    ]);

    expect(data.daily).toHaveLength(30);
    expect(data.daily[0]).toEqual({
      day: '2026-10-22',
      onchainHuman: 0,
      onchainAi: 0,
      offchainHuman: 2,
      offchainAi: 0,
    });
    expect(data.daily[28]).toEqual({
      day: '2026-11-19',
      onchainHuman: 0,
      onchainAi: 3,
      offchainHuman: 0,
      offchainAi: 0,
    });
    expect(data.daily[29]).toEqual({
      day: '2026-11-20',
      onchainHuman: 5,
      onchainAi: 0,
      offchainHuman: 0,
      offchainAi: 4,
    });
    const total = (days: Array<Record<string, number | string>>) =>
      days.reduce(
        (sum, d) => sum + Object.values(d).reduce<number>((s, v) => s + (typeof v === 'number' ? v : 0), 0),
        0,
      );
    expect(total(data.daily)).toBe(14);

    expect(data.deliveries.map((d: { day: string }) => d.day)).toEqual([
      '2026-11-14',
      '2026-11-15',
      '2026-11-16',
      '2026-11-17',
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
    ]);
    expect(data.deliveries[3]).toEqual({ day: '2026-11-17', completed: 1, failed: 0, dead: 0 });
    expect(data.deliveries[6]).toEqual({ day: '2026-11-20', completed: 2, failed: 1, dead: 1 });
    expect(total(data.deliveries)).toBe(5);
  });

  it("gives a member of account A nothing of B's overview (NOT_FOUND)", async () => {
    const a = await createMember(service, 'owner');
    const b = await createMember(service, 'owner');
    const res = await overview(a, b.accountId);
    expect(res.status).toBe(404);
    expect(res.body.error.data.code).toBe('NOT_FOUND');
  });

  it("reads only the window's attestations however many older ones the account has", async () => {
    const owner = await createMember(service, 'owner');
    const { id: keyId } = await key(owner.accountId, 'free');
    const target = { accountId: owner.accountId, keyId };
    // in chunks: one statement stays well within the service's statement timeout on a busy machine
    for (let chunk = 0; chunk < 4; chunk++)
      await attestations(target, 10_000, NOW - (200 - chunk) * DAY, { type: 'human', mode: 'offchain' });
    await attestations(target, 20, NOW - DAY, { type: 'ai', mode: 'offchain' });
    await service.sql.query('ANALYZE attestations'); // raw SQL on purpose: the planner's statistics, no table's rows
    const from = new Date(NOW - 29 * DAY);
    const to = new Date(NOW + DAY);
    const plans: unknown[] = [];
    // the store's own statement, run under EXPLAIN: a pool whose clients prefix every query
    const pool = service.infrastructure.pool;
    const explaining = createDatabase({
      connect: async () => {
        const client = await pool.connect();
        return {
          query: async (text: string, values?: unknown[]) => {
            const result = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
            plans.push(result.rows[0]['QUERY PLAN']);
            return { ...result, rows: [] };
          },
          release: () => client.release(),
        };
      },
      end: async () => undefined,
    } as unknown as Pool);
    await dailyAttestations(explaining, owner.accountId, from, to);
    expect(rowsReadFrom(plans[0], 'attestations')).toBeLessThan(100);
    expect(await dailyAttestations(service.infrastructure.db, owner.accountId, from, to)).toEqual([
      { day: '2026-11-19', mode: 'offchain', type: 'ai', n: 20 },
    ]);
  }, 60_000);
});

/** The rows a plan's scans of `table` read: those returned and those a filter dropped, over every loop. */
function rowsReadFrom(plan: unknown, table: string): number {
  let rows = 0;
  const visit = (node: Record<string, any>) => {
    if (node['Relation Name'] === table)
      rows += ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1);
    for (const child of node.Plans ?? []) visit(child);
  };
  for (const entry of plan as Array<{ Plan: Record<string, any> }>) visit(entry.Plan);
  return rows;
}

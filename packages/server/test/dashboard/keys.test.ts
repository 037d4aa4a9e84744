import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock.ts';
import { auditEntriesOf, openTestDb } from '../support/db.ts';
import { call, type TestService } from '../support/service.ts';
import { createMember, startDashboardService, trpc, type TestMember } from './support.ts';

const clock = manualClock();

describe('dashboard keys', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startDashboardService({ clock });
  }, 60_000);
  afterAll(() => service?.stop());

  const create = (member: TestMember, input: unknown, headers?: Record<string, string>) =>
    trpc(service, 'dashboard.keys.create', {
      cookie: member.cookie,
      accountId: member.accountId,
      mutation: true,
      input,
      headers,
    });
  const revoke = (member: TestMember, prefix: string) =>
    trpc(service, 'dashboard.keys.revoke', {
      cookie: member.cookie,
      accountId: member.accountId,
      mutation: true,
      input: { prefix },
    });
  const list = async (member: TestMember) => {
    const res = await trpc(service, 'dashboard.keys.list', { cookie: member.cookie, accountId: member.accountId });
    expect(res.status).toBe(200);
    return res.body.result.data as Array<Record<string, any>>;
  };
  const attest = (key: string) =>
    call(service.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', content: `c-${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
    });
  const audit = (accountId: string, action: string) => auditEntriesOf(service.db, accountId, action);
  const keyCount = async (accountId: string) =>
    (await service.db.selectFrom('apiKeys').select('id').where('accountId', '=', accountId).execute()).length;

  it('mints a key for a developer (shown once) that works on REST, listed with its creator, audited', async () => {
    const dev = await createMember(service, 'developer');
    const res = await create(dev, { name: 'ci', tier: 'free' });
    expect(res.status).toBe(200);
    const minted = res.body.result.data;
    expect(minted).toMatchObject({ name: 'ci', tier: 'free', prefix: expect.stringMatching(/^[0-9a-f]{12}$/) });
    expect(minted.key).toMatch(new RegExp(`^svc_free_${minted.prefix}_[0-9a-f]{32}$`));

    expect((await attest(minted.key)).status).toBe(201);

    const [listed, ...others] = await list(dev);
    expect(others).toEqual([]);
    expect(listed).toEqual({
      prefix: minted.prefix,
      name: 'ci',
      tier: 'free',
      createdBy: { name: expect.any(String), email: dev.email },
      createdAt: minted.createdAt,
      lastUsedAt: expect.any(String),
      revokedAt: null,
      state: 'active',
    });
    expect(JSON.stringify(listed)).not.toContain(minted.key.slice(-32));
    const row = await service.db
      .selectFrom('apiKeys')
      .select('createdBy')
      .where('prefix', '=', minted.prefix)
      .executeTakeFirstOrThrow();
    expect(row.createdBy).toBe(dev.userId);
    const [entry] = await audit(dev.accountId, 'api_key.created');
    expect(entry!.resource).toBe(`api_key:${minted.prefix}`);
    expect(entry!.details).toMatchObject({
      tier: 'free',
      via: 'dashboard',
      actor: { type: 'member', email: dev.email },
    });
  });

  it('revokes for an admin: the next REST call answers 401 API_KEY_REVOKED, audited with the admin', async () => {
    const admin = await createMember(service, 'admin');
    const minted = (await create(admin, { name: 'to revoke', tier: 'free' })).body.result.data;
    expect((await attest(minted.key)).status).toBe(201);

    const res = await revoke(admin, minted.prefix);
    expect(res.status).toBe(200);
    expect(res.body.result.data).toEqual({ prefix: minted.prefix, revokedAt: expect.any(String) });

    const after = await attest(minted.key);
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('API_KEY_REVOKED');
    expect((await list(admin))[0]).toMatchObject({ state: 'revoked', revokedAt: res.body.result.data.revokedAt });
    const [entry] = await audit(admin.accountId, 'api_key.revoked');
    expect(entry!.details).toMatchObject({ via: 'dashboard', actor: { email: admin.email, role: 'admin' } });
  });

  it("refuses a viewer's create and revoke with 403, and a developer's revoke; nothing changes", async () => {
    const owner = await createMember(service, 'owner');
    const viewer = await createMember(service, 'viewer', owner.accountId);
    const dev = await createMember(service, 'developer', owner.accountId);
    const minted = (await create(owner, { name: 'kept', tier: 'free' })).body.result.data;

    const refusals = [
      await create(viewer, { name: 'x', tier: 'free' }),
      await revoke(viewer, minted.prefix),
      await revoke(dev, minted.prefix),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(403);
      expect(res.body.error.data.code).toBe('FORBIDDEN');
    }
    expect(await keyCount(owner.accountId)).toBe(1);
    expect((await list(viewer)).map((k) => k.state)).toEqual(['active']);
    expect((await attest(minted.key)).status).toBe(201);
  });

  it('mints no tier above the plan: FORBIDDEN naming the plan', async () => {
    const dev = await createMember(service, 'developer');
    const refused = await create(dev, { name: 'pro', tier: 'pro' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.data.code).toBe('FORBIDDEN');
    expect(refused.body.error.message).toMatch(/plan is free/);

    await service.db.updateTable('accounts').set({ plan: 'pro' }).where('id', '=', dev.accountId).execute();
    expect((await create(dev, { name: 'pro', tier: 'pro' })).status).toBe(200);
    const enterprise = await create(dev, { name: 'ent', tier: 'enterprise' });
    expect(enterprise.status).toBe(403);
    expect(enterprise.body.error.message).toMatch(/plan is pro/);
    expect((await list(dev)).map((k) => k.tier)).toEqual(['pro']);
  });

  it("gives a member of account A nothing of B's keys: revoke is NOT_FOUND and the key keeps working", async () => {
    const a = await createMember(service, 'owner');
    const b = await createMember(service, 'owner');
    const bKey = (await create(b, { name: 'b', tier: 'free' })).body.result.data;

    const res = await revoke(a, bKey.prefix);
    expect(res.status).toBe(404);
    expect(res.body.error.data.code).toBe('NOT_FOUND');
    const named = await trpc(service, 'dashboard.keys.revoke', {
      cookie: a.cookie,
      accountId: b.accountId,
      mutation: true,
      input: { prefix: bKey.prefix },
    });
    expect(named.status).toBe(404);
    expect(await list(a)).toEqual([]);
    expect((await attest(bKey.key)).status).toBe(201);
    expect((await list(b))[0]).toMatchObject({ state: 'active' });
    expect(await audit(b.accountId, 'api_key.revoked')).toEqual([]);
  });

  it('refuses a cross-site create carrying a valid cookie (403) and mints nothing', async () => {
    const owner = await createMember(service, 'owner');
    const crossSite: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'https://evil.example' },
    ];
    for (const headers of crossSite) {
      const res = await create(owner, { name: 'x', tier: 'free' }, headers);
      expect(res.status).toBe(403);
    }
    const minted = (await create(owner, { name: 'k', tier: 'free' })).body.result.data;
    const res = await trpc(service, 'dashboard.keys.revoke', {
      cookie: owner.cookie,
      accountId: owner.accountId,
      mutation: true,
      input: { prefix: minted.prefix },
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(res.status).toBe(403);
    expect(await keyCount(owner.accountId)).toBe(1);
    expect((await attest(minted.key)).status).toBe(201);
  });

  it('writes last_used_at at most once a minute per key, in batches', async () => {
    const owner = await createMember(service, 'owner');
    const minted = (await create(owner, { name: 'used', tier: 'free' })).body.result.data;
    // raw SQL on purpose: xmin, the row version that shows whether it was written, is a system column
    const stored = async () =>
      (
        await service.sql.query<{ last_used_at: Date | null; xmin: string }>(
          `SELECT last_used_at, xmin::text FROM api_keys WHERE prefix = $1`,
          [minted.prefix],
        )
      )[0]!;
    const first = clock.now();
    for (let i = 0; i < 3; i++) expect((await attest(minted.key)).status).toBe(201);
    expect((await stored()).last_used_at).toBeNull(); // no write per request
    await service.services.keys.lastUse.flush();
    const written = await stored();
    expect(written.last_used_at?.getTime()).toBe(first);

    clock.advance(30_000);
    expect((await attest(minted.key)).status).toBe(201);
    await service.services.keys.lastUse.flush();
    expect(await stored()).toEqual(written); // same time, same row version: not written again

    clock.advance(31_000);
    expect((await attest(minted.key)).status).toBe(201);
    expect((await list(owner))[0]!.lastUsedAt).toBe(new Date(clock.now()).toISOString()); // noted, not yet written
    await service.services.keys.lastUse.flush();
    expect((await stored()).last_used_at?.getTime()).toBe(clock.now());
  });
});

describe('dashboard keys: the last uses at stop', () => {
  it('are written when the service stops', async () => {
    const service = await startDashboardService();
    let stopped = false;
    try {
      const { key, prefix } = await service.createKey('free');
      const res = await call(service.url, 'POST', '/v1/attestations', {
        key,
        body: { type: 'ai', content: 'x', contentType: 'text/plain', mode: 'offchain' },
      });
      expect(res.status).toBe(201);
      await service.stop();
      stopped = true;
      const db = openTestDb(service.databaseUrl);
      try {
        const row = await db
          .selectFrom('apiKeys')
          .select('lastUsedAt')
          .where('prefix', '=', prefix)
          .executeTakeFirstOrThrow();
        expect(row.lastUsedAt).toBeInstanceOf(Date);
      } finally {
        await db.destroy();
      }
    } finally {
      if (!stopped) await service.stop();
    }
  }, 60_000);
});

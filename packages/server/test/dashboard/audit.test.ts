import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEntries, exportOf } from '../audit/support.ts';
import { call, type TestService } from '../support/service.ts';
import { createMember, startDashboardService, trpc, type TestMember } from './support.ts';

const BASE = Date.parse('2026-01-01T00:00:00.000Z');
const minute = (n: number) => new Date(BASE + n * 60_000);
const SEEDED_UNTIL = minute(60).toISOString();

describe('dashboard audit log', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startDashboardService();
  }, 60_000);
  afterAll(() => service?.stop());

  const list = (member: TestMember, input: Record<string, unknown> = {}) =>
    trpc(service, 'dashboard.audit.list', { cookie: member.cookie, accountId: member.accountId, input });
  /** The seeded entries' resources (before the members' sign-ups, which the service audits as they happen). */
  async function resources(member: TestMember, input: Record<string, unknown> = {}): Promise<string[]> {
    const res = await list(member, { to: SEEDED_UNTIL, ...input });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.result.data.data.map((e: { resource: string }) => e.resource);
  }
  async function walk(member: TestMember, input: Record<string, unknown>): Promise<string[][]> {
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const res = await list(member, { to: SEEDED_UNTIL, ...input, ...(cursor ? { cursor } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      pages.push(res.body.result.data.data.map((e: { resource: string }) => e.resource));
      cursor = res.body.result.data.nextCursor ?? undefined;
    } while (cursor);
    return pages;
  }
  const member = { type: 'member', email: 'x@example.com', userId: 'u-x', role: 'admin' };
  /** Five entries of known times, actions and actors (e3 and e4 in the same millisecond: e4 is the newer). */
  const seed = (accountId: string) =>
    appendEntries(service, accountId, [
      { at: minute(0), action: 'a.one', actorKeyPrefix: 'aaaaaaaaaaaa', resource: 'e1' },
      { at: minute(1), action: 'a.two', actorKeyPrefix: 'bbbbbbbbbbbb', resource: 'e2' },
      { at: minute(2), action: 'a.one', resource: 'e3', details: { actor: member } },
      { at: minute(2), action: 'a.two', actorKeyPrefix: 'aaaaaaaaaaaa', resource: 'e4' },
      { at: minute(3), action: 'a.one', resource: 'e5' },
    ]);

  it("lists the account's entries newest first; the actor is the key's prefix, the member's email, or null", async () => {
    const owner = await createMember(service, 'owner');
    const viewer = await createMember(service, 'viewer', owner.accountId);
    const { key, prefix } = await service.createKey('free', owner.accountName);
    const created = await call(service.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', content: `audited ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
    });
    expect(created.status).toBe(201);
    const minted = await trpc(service, 'dashboard.keys.create', {
      cookie: owner.cookie,
      accountId: owner.accountId,
      mutation: true,
      input: { name: 'ci', tier: 'free' },
    });
    expect(minted.status).toBe(200);

    const res = await list(viewer);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { data: items, nextCursor } = res.body.result.data;
    expect(nextCursor).toBeNull();
    // newest first: what this test did, after the entries of the members' sign-ups
    expect(items.slice(0, 3).map((e: { action: string; actor: string | null }) => [e.action, e.actor])).toEqual([
      ['api_key.created', owner.email],
      ['attestation.created', prefix],
      ['api_key.created', null],
    ]);
    expect(items[1]).toEqual({
      id: expect.stringMatching(/^\d+$/),
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      action: 'attestation.created',
      actor: prefix,
      resource: `attestation:${created.body.uid}`,
      outcome: 'success',
      ip: expect.any(String),
      details: { mode: 'offchain', type: 'human' },
    });
    expect(items[0].details.actor).toMatchObject({ type: 'member', email: owner.email, role: 'owner' });
  });

  it('filters by action, actor (a key prefix or an email, any case) and time range, in keyset pages', async () => {
    const owner = await createMember(service, 'owner');
    await seed(owner.accountId);
    expect(await resources(owner)).toEqual(['e5', 'e4', 'e3', 'e2', 'e1']);
    expect(await resources(owner, { action: 'a.one' })).toEqual(['e5', 'e3', 'e1']);
    expect(await resources(owner, { action: 'a.on' })).toEqual([]);
    expect(await resources(owner, { actor: 'AAAAAAAAAAAA' })).toEqual(['e4', 'e1']);
    expect(await resources(owner, { actor: 'X@Example.com' })).toEqual(['e3']);
    expect(await resources(owner, { actor: 'y@example.com' })).toEqual([]);
    expect(await resources(owner, { action: 'a.one', actor: 'aaaaaaaaaaaa' })).toEqual(['e1']);
    const range = { from: minute(1).toISOString(), to: minute(3).toISOString() };
    expect(await resources(owner, range)).toEqual(['e4', 'e3', 'e2']);
    expect(await resources(owner, { from: '2026-01-01T00:02:00+00:00' })).toEqual(['e5', 'e4', 'e3']);
    expect(await resources(owner, { to: '2026-01-01' })).toEqual([]);
    const fromOnly = (await list(owner, { from: minute(2).toISOString() })).body.result.data.data;
    expect(fromOnly.map((e: { resource: string }) => e.resource).slice(-3)).toEqual(['e5', 'e4', 'e3']);
    expect(fromOnly).toHaveLength(5); // and the two entries of the owner's sign-up, newer
    expect(await resources(owner, { ...range, action: 'a.two' })).toEqual(['e4', 'e2']);

    expect(await walk(owner, { limit: 2 })).toEqual([['e5', 'e4'], ['e3', 'e2'], ['e1']]);
    expect(await walk(owner, { limit: 1 })).toEqual([['e5'], ['e4'], ['e3'], ['e2'], ['e1']]);
    expect(await walk(owner, { action: 'a.one', limit: 2 })).toEqual([['e5', 'e3'], ['e1']]);
    expect(await walk(owner, { ...range, limit: 2 })).toEqual([['e4', 'e3'], ['e2']]);
  });

  it('pages entries of the same millisecond in id order, also across a power of ten', async () => {
    const owner = await createMember(service, 'owner');
    // raw SQL on purpose: the ids are moved to just below a power of ten through their sequence, which no typed
    // table holds
    const [row] = await service.sql.query<{ next: string }>(
      `SELECT (10 ^ (length((last_value + 10)::text)))::bigint - 3 AS next FROM audit_entries_id_seq`,
    );
    const next = row!.next;
    await service.sql.query(`SELECT setval('audit_entries_id_seq', $1::bigint)`, [next]);
    const tied = ['t1', 't2', 't3', 't4', 't5', 't6'];
    await appendEntries(
      service,
      owner.accountId,
      tied.map((resource) => ({ at: minute(7), action: 'a.tie', resource })),
    );
    const ids = await service.db
      .selectFrom('auditEntries')
      .select('id')
      .where('accountId', '=', owner.accountId)
      .where('action', '=', 'a.tie')
      .orderBy('id')
      .execute();
    expect(ids.map((r) => r.id.length)).toContain(String(next).length + 1); // the ids cross 10^k
    const newestFirst = [...tied].reverse();
    expect(await resources(owner)).toEqual(newestFirst);
    expect((await walk(owner, { limit: 2 })).flat()).toEqual(newestFirst);
    expect((await walk(owner, { limit: 1, action: 'a.tie' })).flat()).toEqual(newestFirst);
  });

  it('refuses cursors it did not issue and malformed filters with 400 VALIDATION_FAILED, never 500', async () => {
    const viewer = await createMember(service, 'viewer');
    await seed(viewer.accountId);
    const issued = (await list(viewer, { limit: 1 })).body.result.data.nextCursor as string;
    expect((await list(viewer, { cursor: issued })).status).toBe(200);
    const encode = (text: string) => Buffer.from(text).toString('base64url');
    for (const cursor of [
      'garbage',
      `${issued}=`,
      encode('2026-02-30T00:00:00.000Z|5'),
      encode('2026-01-01T00:00:00Z|5'),
      encode('2026-01-01T00:00:00.000Z|0'),
      encode('2026-01-01T00:00:00.000Z|9223372036854775808'),
      encode('2026-01-01T00:00:00.000Z|5|6'),
      encode('id:5'),
      encode("2026-01-01T00:00:00.000Z|5' OR 1=1 --"),
    ]) {
      const res = await list(viewer, { cursor });
      expect(res.status, cursor).toBe(400);
      expect(res.body.error.data).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { errors: [{ path: 'cursor' }] },
      });
    }
    expect((await list(viewer, { cursor: encode('2026-01-01T00:00:00.000Z|9223372036854775807') })).status).toBe(200);
    for (const input of [
      { from: minute(3).toISOString(), to: minute(1).toISOString() },
      { from: minute(1).toISOString(), to: minute(1).toISOString() },
      { from: 'yesterday' },
      { to: '2026-13-01' },
      { actor: 'not a prefix' },
      { actor: 'abc' },
      { action: '' },
      { action: 'x'.repeat(65) },
      { limit: 0 },
      { limit: 101 },
      { other: true },
      { action: 'a\u0000' },
    ]) {
      const res = await list(viewer, input);
      expect(res.status, JSON.stringify(input)).toBe(400);
      expect(res.body.error.data.code).toBe('VALIDATION_FAILED');
    }
  });

  it("gives a member of account A none of account B's entries", async () => {
    const a = await createMember(service, 'owner');
    const b = await createMember(service, 'owner');
    await seed(b.accountId);
    await appendEntries(service, a.accountId, [{ at: minute(5), action: 'a.one', resource: 'mine' }]);
    expect(await resources(a)).toEqual(['mine']);
    expect(await resources(a, { actor: 'aaaaaaaaaaaa' })).toEqual([]);
    expect(await resources(a, { action: 'a.two' })).toEqual([]);
    const named = await trpc(service, 'dashboard.audit.list', { cookie: a.cookie, accountId: b.accountId });
    expect(named.status).toBe(404);
    expect(named.body.error.data.code).toBe('NOT_FOUND');
  });

  describe('export download', () => {
    const download = (query: string, headers: Record<string, string> = {}, method = 'GET') =>
      fetch(`${service.url}/dashboard/api/audit-export${query}`, { method, headers });
    const range = `from=${minute(-1).toISOString()}&to=${minute(10).toISOString()}`;

    it('streams exactly what GET /v1/audit/export streams, CSV and JSON, as a named attachment', async () => {
      const owner = await createMember(service, 'owner');
      const viewer = await createMember(service, 'viewer', owner.accountId);
      await seed(owner.accountId);
      const { key } = await service.createKey('free', owner.accountName);
      for (const format of ['csv', 'json']) {
        const res = await download(`?format=${format}&${range}&account=${owner.accountId}`, { cookie: viewer.cookie });
        const text = await res.text();
        expect(res.status, text).toBe(200);
        const api = await exportOf(service, key, `?format=${format}&${range}`);
        expect(api.status).toBe(200);
        expect(text).toBe(api.text);
        expect(res.headers.get('content-type')).toBe(api.headers.get('content-type'));
        expect(res.headers.get('content-disposition')).toBe(api.headers.get('content-disposition'));
        expect(res.headers.get('content-disposition')).toMatch(
          new RegExp(`^attachment; filename="audit-${owner.accountName}-\\d{8}T\\d{6}Z-\\d{8}T\\d{6}Z\\.${format}"$`),
        );
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
      const csv = await (
        await download(`?format=csv&${range}&account=${owner.accountId}`, { cookie: owner.cookie })
      ).text();
      expect(csv.split('\r\n').filter(Boolean)).toHaveLength(6); // the header and e1..e5
      const json = (await (
        await download(`?format=json&${range}`, { cookie: owner.cookie, 'x-account-id': owner.accountId })
      ).json()) as Array<{ resource: string }>;
      expect(json.map((e) => e.resource)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    });

    it('without a range is the whole log, entries over a year old included (the API defaults to 30 days)', async () => {
      const owner = await createMember(service, 'owner');
      const old = new Date(Date.now() - 400 * 86_400_000);
      await appendEntries(service, owner.accountId, [{ at: old, action: 'a.old', resource: 'oldest' }]);
      await seed(owner.accountId);
      const res = await download(`?format=json&account=${owner.accountId}`, { cookie: owner.cookie });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toMatch(
        new RegExp(`^attachment; filename="audit-${owner.accountName}-start-\\d{8}T\\d{6}(\\.\\d{3})?Z\\.json"$`),
      );
      const resources = ((await res.json()) as Array<{ resource: string }>).map((e) => e.resource);
      expect(resources).toEqual(expect.arrayContaining(['oldest', 'e1', 'e2', 'e3', 'e4', 'e5']));
    });

    it('answers errors as JSON: 401 without a session, 404 for an account not theirs, 400 for a bad range', async () => {
      const a = await createMember(service, 'owner');
      const b = await createMember(service, 'owner');
      await seed(b.accountId);
      const expectError = async (res: Response, status: number, code: string) => {
        expect(res.status).toBe(status);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await res.json()).toEqual({ code, message: expect.any(String), details: expect.any(Object) });
      };
      await expectError(await download(`?format=csv&account=${a.accountId}`), 401, 'UNAUTHENTICATED');
      await expectError(
        await download(`?format=csv&account=${a.accountId}`, { cookie: 'x=y' }),
        401,
        'UNAUTHENTICATED',
      );
      await expectError(await download(`?format=csv&account=${b.accountId}`, { cookie: a.cookie }), 404, 'NOT_FOUND');
      await expectError(
        await download(`?format=csv`, { cookie: a.cookie, 'x-account-id': b.accountId }),
        404,
        'NOT_FOUND',
      );
      const reversed = `from=${minute(3).toISOString()}&to=${minute(1).toISOString()}`;
      await expectError(
        await download(`?format=csv&${reversed}&account=${a.accountId}`, { cookie: a.cookie }),
        400,
        'VALIDATION_FAILED',
      );
      await expectError(
        await download(`?format=xml&account=${a.accountId}`, { cookie: a.cookie }),
        400,
        'VALIDATION_FAILED',
      );
      await expectError(await download(`?format=csv&action=%00`, { cookie: a.cookie }), 400, 'VALIDATION_FAILED');
      await expectError(await download(`?format=csv`, { cookie: a.cookie }, 'POST'), 405, 'METHOD_NOT_ALLOWED');
      await expectError(await download(`/more?format=csv`, { cookie: a.cookie }), 404, 'NOT_FOUND');
    });
  });
});

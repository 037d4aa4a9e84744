// Secrets at rest (docs/decisions.md, "Secrets at rest"): everything a copy of the database holds, read row by row,
// opens no pending invitation and forges no session; the page lists and signs out sessions by id, never by token; a
// rotated SERVICE_SECRET still opens the links sealed under the previous one.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../src/config.ts';
import type { Sql } from '../support/sql.ts';
import { SESSION_COOKIE_PREFIX, sessionCookieSecret } from '../../src/dashboard/auth.ts';
import { tokenSealer } from '../../src/accounts/invitation-seal.ts';
import { randomIp, type TestService } from '../support/service.ts';
import { createMember, signIn, startDashboardService, tokenOf, trpc, type TestMember } from './support.ts';

const AUTH = '/dashboard/api/auth';
const COOKIE = `${SESSION_COOKIE_PREFIX}.session_token`;
const SECRET_A = 'rotation-secret-a-0123456789abcdefghijklmnop';
const SECRET_B = 'rotation-secret-b-0123456789abcdefghijklmnop';

/**
 * Every value of every table of the public schema as text (bytes in each usual encoding): a dump of the database.
 * Raw SQL on purpose: the tables are the catalog's, whatever schema.prisma declares, as a dump would find them.
 */
async function dumpValues(sql: Sql): Promise<string[]> {
  const tables = await sql.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['invitations', 'sessions', 'users']));
  const values = new Set<string>();
  const collect = (value: unknown): void => {
    if (value === null || value === undefined || value instanceof Date) return;
    if (Buffer.isBuffer(value))
      for (const enc of ['hex', 'base64', 'base64url'] as const) values.add(value.toString(enc));
    else if (typeof value === 'object') Object.values(value).forEach(collect);
    else for (const text of [String(value), ...String(value).split('.')]) if (text) values.add(text);
  };
  for (const { name } of tables) (await sql.query(`SELECT * FROM "${name}"`)).forEach((row) => collect(row));
  return [...values];
}

/** A session cookie as better-auth signs it (better-call: HMAC-SHA256 of the value, base64, URL-encoded). */
const signed = (token: string, key: string) =>
  `${COOKIE}=${encodeURIComponent(`${token}.${createHmac('sha256', key).update(token).digest('base64')}`)}`;

const me = (service: TestService, cookie: string) =>
  trpc(service, 'dashboard.session.me', { cookie, headers: { 'x-forwarded-for': randomIp() } });
const getSession = async (service: TestService, cookie: string) => {
  const res = await fetch(`${service.url}${AUTH}/get-session`, {
    headers: { cookie, 'x-forwarded-for': randomIp() },
  });
  return { status: res.status, body: (await res.json()) as unknown };
};
const view = (service: TestService, token: string) =>
  trpc(service, 'dashboard.invitations.get', { input: { token }, headers: { 'x-forwarded-for': randomIp() } });

/** Runs `check` over `items`, a few at a time (the service is shared with the other test files' work). */
async function each<T>(items: T[], check: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += 8) await Promise.all(items.slice(i, i + 8).map(check));
}

describe('a dump of the database', () => {
  let service: TestService;
  let owner: TestMember;
  let links: string[];
  let dump: string[];
  beforeAll(async () => {
    service = await startDashboardService();
    owner = await createMember(service, 'owner');
    const invited = await trpc(service, 'dashboard.members.invite', {
      cookie: owner.cookie,
      accountId: owner.accountId,
      mutation: true,
      input: { email: `pending-${Date.now()}@example.com`, role: 'admin' },
    });
    const support = await service.services.invitations.inviteSupport(`support-${Date.now()}@example.com`);
    links = [service.setupLink!.url, invited.body.result.data.url as string, support.url];
    dump = await dumpValues(service.sql);
  }, 120_000);
  afterAll(() => service?.stop());

  it('holds no pending link in clear, and each link still opens its invitation', async () => {
    expect(dump.length).toBeGreaterThan(50);
    for (const url of links) {
      const token = tokenOf(url);
      expect(dump.filter((value) => value.includes(token))).toEqual([]);
      expect((await view(service, token)).status).toBe(200);
    }
  });

  it('holds no key that unseals a sealed link: every value tried as SERVICE_SECRET opens none', async () => {
    const sealed = (await service.db.selectFrom('invitations').select('tokenSealed').execute()).map(
      (r) => r.tokenSealed,
    );
    expect(sealed.length).toBeGreaterThanOrEqual(links.length);
    // the control: the service's own secret opens them
    const real = tokenSealer({ current: service.config.serviceSecret.current!, previous: undefined });
    expect(sealed.map((s) => real.unseal(s)).filter(Boolean).length).toBeGreaterThanOrEqual(links.length);
    for (const candidate of dump) {
      const sealer = tokenSealer({ current: new Secret(candidate), previous: undefined });
      expect(sealed.filter((s) => sealer.unseal(s) !== undefined)).toEqual([]);
    }
  });

  it('holds no value that opens an invitation when presented as its token', async () => {
    const tokens = dump.filter((value) => value.length <= 200);
    await each(tokens, async (token) => expect([400, 404], token).toContain((await view(service, token)).status));
  });

  it('forges no session: its session tokens, unsigned or signed with any value of it, are refused', async () => {
    const sessions = await service.db.selectFrom('sessions').select('token').execute();
    expect(sessions.length).toBeGreaterThan(0);
    // the control: signed here with the service's own key, a dumped token is taken; a refusal below is the key's
    const key = sessionCookieSecret({ current: service.config.serviceSecret.current!, previous: undefined });
    const real = signed(sessions[0]!.token, key);
    expect((await me(service, real)).status).toBe(200);
    const cookies = sessions.flatMap(({ token }) => [`${COOKIE}=${token}`, `${COOKIE}=${token}.`]);
    for (const candidate of dump) cookies.push(...sessions.map(({ token }) => signed(token, candidate)));
    expect(cookies).not.toContain(real);
    await each(cookies, async (cookie) => {
      expect((await me(service, cookie)).status, cookie).toBe(401);
      expect(await getSession(service, cookie)).toEqual({ status: 200, body: null });
    });
  }, 300_000);
});

describe("the dashboard's sessions", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startDashboardService();
  });
  afterAll(() => service?.stop());

  it('are listed and signed out by id: no session token reaches the page', async () => {
    const member = await createMember(service, 'viewer');
    const other = await signIn(service, member);
    expect(other.body).not.toHaveProperty('token');
    const listed = await trpc(service, 'dashboard.session.sessions', { cookie: member.cookie });
    expect(listed.status).toBe(200);
    const rows = listed.body.result.data as { id: string; current: boolean }[];
    expect(rows).toHaveLength(2);
    expect(rows.filter((r) => r.current)).toHaveLength(1);
    const tokens = await service.db.selectFrom('sessions').select('token').execute();
    for (const { token } of tokens) expect(JSON.stringify(listed.body)).not.toContain(token);
    const session = await getSession(service, member.cookie);
    expect(session.body).toMatchObject({ session: { userId: member.userId }, user: { email: member.email } });
    expect((session.body as { session: object }).session).not.toHaveProperty('token');

    const stranger = await createMember(service, 'viewer');
    const theirs = rows.find((r) => !r.current)!.id;
    const revoke = (cookie: string, id: string) =>
      trpc(service, 'dashboard.session.revokeSession', { cookie, mutation: true, input: { id } });
    expect((await revoke(stranger.cookie, theirs)).status).toBe(404);
    expect((await me(service, other.cookie)).status).toBe(200);
    expect((await revoke(member.cookie, theirs)).status).toBe(200);
    expect((await me(service, other.cookie)).status).toBe(401);
    expect((await me(service, member.cookie)).status).toBe(200);
  });

  it("answers better-auth's endpoints that hand out or take session tokens with 404", async () => {
    const member = await createMember(service, 'viewer');
    const headers = { cookie: member.cookie, origin: service.config.publicBaseUrl, 'content-type': 'application/json' };
    for (const path of ['/list-sessions', '/list-sessions/']) {
      const res = await fetch(`${service.url}${AUTH}${path}`, { headers });
      expect(res.status, path).toBe(404);
      expect(await res.text()).not.toMatch(/token/);
    }
    const [row] = await service.db.selectFrom('sessions').select('token').where('userId', '=', member.userId).execute();
    const revoke = await fetch(`${service.url}${AUTH}/revoke-session`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ token: row!.token }),
    });
    expect(revoke.status).toBe(404);
    expect((await me(service, member.cookie)).status).toBe(200);
  });
});

describe('a rotated SERVICE_SECRET', () => {
  it('still opens the links sealed under SERVICE_SECRET_PREVIOUS, and signs every member out', async () => {
    const first = await startDashboardService({ env: { SERVICE_SECRET: SECRET_A } });
    const owner = await createMember(first, 'owner');
    const invited = await trpc(first, 'dashboard.members.invite', {
      cookie: owner.cookie,
      accountId: owner.accountId,
      mutation: true,
      input: { email: `rotated-${Date.now()}@example.com`, role: 'viewer' },
    });
    const url = invited.body.result.data.url as string;
    await first.stop();
    const pendingTokens = async (env: Record<string, string>) => {
      const next = await startDashboardService({ env: { DATABASE_URL: first.databaseUrl, ...env } });
      try {
        // better-auth signs cookies with one secret: the old cookie is refused, the member signs in again
        expect((await me(next, owner.cookie)).status).toBe(401);
        const { cookie } = await signIn(next, owner);
        const list = await trpc(next, 'dashboard.members.list', { cookie, accountId: owner.accountId });
        return (list.body.result.data.invitations as { url: string | null }[]).map((i) => i.url && tokenOf(i.url));
      } finally {
        await next.stop();
      }
    };
    expect(await pendingTokens({ SERVICE_SECRET: SECRET_B, SERVICE_SECRET_PREVIOUS: SECRET_A })).toEqual([
      tokenOf(url),
    ]);
    expect(await pendingTokens({ SERVICE_SECRET: SECRET_B })).toEqual([null]);
  }, 120_000);
});

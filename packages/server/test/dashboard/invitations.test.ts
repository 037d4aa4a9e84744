import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock.ts';
import type { TestService } from '../support/service.ts';
import { createMember, signUp, signUpOpen, startDashboardService, tokenOf, trpc } from './support.ts';

const DAY = 24 * 3600_000;
let seq = 0;
const person = (tag: string) => {
  const n = `${tag}-${process.pid}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;
  return { email: `${n}@example.com`, password: `pw-${n}-long-enough`, name: n };
};

/** The account's audit entries, oldest first: action and details (details.actor names the member). */
async function auditOf(service: TestService, accountId: string) {
  return service.db
    .selectFrom('auditEntries')
    .select(['action', 'details'])
    .where('accountId', '=', accountId)
    .orderBy('id')
    .$narrowType<{ details: Record<string, any> }>()
    .execute();
}

const view = (service: TestService, token: string) => trpc(service, 'dashboard.invitations.get', { input: { token } });
const accept = (service: TestService, cookie: string, input: { token: string; accountName?: string }) =>
  trpc(service, 'dashboard.invitations.accept', { cookie, mutation: true, input });

describe('the owner setup link', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startDashboardService();
  });
  afterAll(() => service.stop());

  it('is made at start on a database with no member, valid 24 h, and the same link again after a restart', async () => {
    const link = service.setupLink!;
    expect(link.url).toMatch(new RegExp(`^${service.config.publicBaseUrl}/dashboard/invite/[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(link.expiresAt) - Date.now()).toBeGreaterThan(DAY - 60_000);
    expect(Date.parse(link.expiresAt) - Date.now()).toBeLessThanOrEqual(DAY);
    // what a restart does while the link is pending
    expect((await service.services.invitations.ownerSetupLink())?.url).toBe(link.url);
    const res = await view(service, tokenOf(link.url));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.result.data).toEqual({
      kind: 'setup',
      accountName: null,
      email: null,
      role: 'owner',
      expiresAt: link.expiresAt,
      adoptable: [],
    });
  });

  it('opens the account its user names, with them as owner, once; a taken name leaves the link usable', async () => {
    const token = tokenOf(service.setupLink!.url);
    const owner = person('first-owner');
    const up = await signUp(service, owner, token);
    expect(up.status).toBe(200);

    const unnamed = await accept(service, up.cookie, { token });
    expect(unnamed.status).toBe(400);
    const taken = (await service.createKey('free')).account;
    const clash = await accept(service, up.cookie, { token, accountName: taken });
    expect(clash.status).toBe(409);
    expect(clash.body.error.data.code).toBe('ALREADY_EXISTS');

    const name = `first-${seq}-${Math.random().toString(36).slice(2, 8)}`;
    const opened = await accept(service, up.cookie, { token, accountName: name });
    expect(opened.status).toBe(200);
    const { accountId } = opened.body.result.data;
    expect(opened.body.result.data.kind).toBe('setup');
    const me = await trpc(service, 'dashboard.session.me', { cookie: up.cookie });
    expect(me.body.result.data.memberships).toEqual([{ accountId, accountName: name, role: 'owner', plan: 'free' }]);
    expect(await auditOf(service, accountId)).toEqual([
      {
        action: 'account.created',
        details: expect.objectContaining({
          name,
          plan: 'free',
          actor: { type: 'member', email: owner.email, userId: up.body.user.id, role: 'owner' },
        }),
      },
    ]);

    // used: it works no more, and no new setup link is made now that the database has a member
    expect((await view(service, token)).status).toBe(404);
    const again = await accept(service, up.cookie, { token, accountName: `${name}-2` });
    expect(again.status).toBe(404);
    expect(await service.db.selectFrom('accounts').select('id').where('name', '=', `${name}-2`).execute()).toEqual([]);
    expect(await service.services.invitations.ownerSetupLink()).toBeUndefined();
  });
});

describe('member invitations', () => {
  const clock = manualClock();
  let service: TestService;
  beforeAll(async () => {
    service = await startDashboardService({ clock });
  });
  afterAll(() => service.stop());

  const invite = (owner: { cookie: string; accountId: string }, email: string, role = 'developer') =>
    trpc(service, 'dashboard.members.invite', {
      cookie: owner.cookie,
      accountId: owner.accountId,
      mutation: true,
      input: { email, role },
    });

  it('lets the invited email join with the invited role, once, audited with the owner and the new member', async () => {
    const owner = await createMember(service, 'owner');
    const dev = person('dev');
    const invited = await invite(owner, dev.email.toUpperCase());
    expect(invited.status).toBe(200);
    const { url, expiresAt } = invited.body.result.data;
    expect(Date.parse(expiresAt)).toBe(clock.now() + 7 * DAY);
    const token = tokenOf(url);

    expect((await view(service, token)).body.result.data).toEqual({
      kind: 'member',
      accountName: owner.accountName,
      email: dev.email,
      role: 'developer',
      expiresAt,
      adoptable: [],
    });
    const up = await signUp(service, dev, token);
    expect(up.status).toBe(200);
    const joined = await accept(service, up.cookie, { token });
    expect(joined.status).toBe(200);
    expect(joined.body.result.data).toEqual({ kind: 'member', accountId: owner.accountId });
    const me = await trpc(service, 'dashboard.session.me', { cookie: up.cookie });
    expect(me.body.result.data.memberships).toEqual([expect.objectContaining({ role: 'developer' })]);

    // a used link does not work twice: not for its person, not for a sign-up
    expect((await accept(service, up.cookie, { token })).status).toBe(404);
    expect((await view(service, token)).status).toBe(404);
    expect((await signUp(service, person('late'), token)).status).toBe(403);

    const entries = (await auditOf(service, owner.accountId)).slice(-2);
    expect(entries).toEqual([
      {
        action: 'member.invited',
        details: expect.objectContaining({
          email: dev.email,
          role: 'developer',
          actor: expect.objectContaining({ type: 'member', email: owner.email, role: 'owner' }),
        }),
      },
      {
        action: 'member.joined',
        details: expect.objectContaining({
          role: 'developer',
          actor: expect.objectContaining({ email: dev.email, userId: up.body.user.id, role: 'developer' }),
        }),
      },
    ]);
  });

  it('grants once when the same link is accepted twice at the same moment', async () => {
    const owner = await createMember(service, 'owner');
    const viewer = person('twice');
    const token = tokenOf((await invite(owner, viewer.email, 'viewer')).body.result.data.url);
    const up = await signUp(service, viewer, token);
    const both = await Promise.all([accept(service, up.cookie, { token }), accept(service, up.cookie, { token })]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 404]);
    const joined = (await auditOf(service, owner.accountId)).filter((e) => e.details.actor?.email === viewer.email);
    expect(joined.map((e) => e.action)).toEqual(['member.joined']);
  });

  it('refuses a signed-in person of another email (403), and the link stays usable for its own', async () => {
    const owner = await createMember(service, 'owner');
    const stranger = await createMember(service, 'owner');
    const invited = person('invited');
    const token = tokenOf((await invite(owner, invited.email)).body.result.data.url);
    const wrong = await accept(service, stranger.cookie, { token });
    expect(wrong.status).toBe(403);
    const members = await service.db
      .selectFrom('members')
      .select('id')
      .where('accountId', '=', owner.accountId)
      .execute();
    expect(members.length).toBe(1);
    expect((await view(service, token)).status).toBe(200);
    // nor may someone sign up under another email with it
    expect((await signUp(service, person('other'), token)).status).toBe(403);
  });

  it('expires after 7 days: the link, its sign-up and its acceptance are refused', async () => {
    const owner = await createMember(service, 'owner');
    const late = person('late');
    const token = tokenOf((await invite(owner, late.email)).body.result.data.url);
    const up = await signUp(service, late, token);
    expect(up.status).toBe(200);
    clock.advance(7 * DAY + 1000);
    expect((await view(service, token)).status).toBe(404);
    expect((await accept(service, up.cookie, { token })).status).toBe(404);
    expect((await signUp(service, person('later'), token)).status).toBe(403);
    expect(await service.db.selectFrom('members').select('id').where('userId', '=', up.body.user.id).execute()).toEqual(
      [],
    );
  });

  it('answers NOT_FOUND for a token that never was, whatever its shape', async () => {
    for (const token of ['A'.repeat(43), 'short', '../../etc/passwd'])
      expect((await view(service, token)).status).toBe(404);
  });

  it('limits opening links per client address (no session to limit by)', async () => {
    const headers = { 'x-forwarded-for': '198.51.100.77' };
    const statuses: number[] = [];
    for (let i = 0; i < 32; i++)
      statuses.push(
        (await trpc(service, 'dashboard.invitations.get', { input: { token: 'A'.repeat(43) }, headers })).status,
      );
    expect(statuses.slice(0, 30).every((s) => s === 404)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe('dashboard.accounts.create', () => {
  it('is refused while sign-up is closed', async () => {
    const service = await startDashboardService();
    try {
      const member = await createMember(service, 'viewer');
      const res = await trpc(service, 'dashboard.accounts.create', {
        cookie: member.cookie,
        mutation: true,
        input: { name: `closed-${Math.random()}` },
      });
      expect(res.status).toBe(403);
    } finally {
      await service.stop();
    }
  });

  it('opens a free account with the caller as owner while sign-up is open; a taken name is 409', async () => {
    const service = await startDashboardService({ env: { DASHBOARD_SIGNUP: 'open' } });
    try {
      const someone = person('open');
      const up = await signUpOpen(service, someone);
      expect(up.status).toBe(200);
      const name = `open-${Math.random().toString(36).slice(2, 8)}`;
      const create = (accountName: string) =>
        trpc(service, 'dashboard.accounts.create', { cookie: up.cookie, mutation: true, input: { name: accountName } });
      const res = await create(name);
      expect(res.status).toBe(200);
      const me = await trpc(service, 'dashboard.session.me', { cookie: up.cookie });
      expect(me.body.result.data.memberships).toEqual([
        { accountId: res.body.result.data.accountId, accountName: name, role: 'owner', plan: 'free' },
      ]);
      const [entry] = await auditOf(service, res.body.result.data.accountId);
      expect(entry).toMatchObject({ action: 'account.created', details: { actor: { email: someone.email } } });
      expect((await create(name)).status).toBe(409);
    } finally {
      await service.stop();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAccount, insertMember } from '../support/db.ts';
import { linkIn, startInbox, type Inbox } from '../mail/inbox.ts';
import { randomIp, type TestService } from '../support/service.ts';
import { createMember, signIn, signUp, signUpOpen, startDashboardService, trpc, unique } from './support.ts';

let inbox: Inbox;
let service: TestService;

beforeAll(async () => {
  inbox = await startInbox();
  service = await startDashboardService({
    worker: true,
    // the per-person cap keeps its default (3); the per-network one is lowered so a test can reach it
    env: { DASHBOARD_SIGNUP: 'open', SMTP_URL: inbox.smtpUrl, DASHBOARD_ACCOUNTS_PER_NETWORK_PER_DAY: '4' },
  });
});
afterAll(async () => {
  await service?.stop();
  await inbox?.stop();
});

const person = (tag: string) => {
  const n = unique(tag);
  return { email: `${n}@example.com`, password: `pw-${n}-long-enough`, name: n };
};

/** Opens an account from a client address (a fresh one unless given: the per-network cap has its own test). */
const openAccount = (cookie: string, name: string, ip = randomIp()) =>
  trpc(service, 'dashboard.accounts.create', {
    cookie,
    mutation: true,
    input: { name },
    headers: { 'x-forwarded-for': ip },
  });

const accountsNamed = async (name: string) =>
  (await service.db.selectFrom('accounts').select('id').where('name', '=', name).execute()).length;

/** An account a sign-up opened before confirmation was required, owned by this person, with nobody confirmed. */
async function unvouchedAccount(userId: string): Promise<string> {
  const id = await insertAccount(service.db, { name: unique('legacy'), createdBy: 'dashboard', vouched: false });
  await insertMember(service.db, { accountId: id, userId, role: 'owner' });
  return id;
}

describe('open sign-up: a confirmed address first', () => {
  it('an unconfirmed sign-up opens no account, mints no key, invites nobody (403); after the mailed link, it does', async () => {
    const who = person('unconfirmed');
    const up = await signUpOpen(service, who, { confirmed: false });
    expect(up.status).toBe(200);
    const legacy = await unvouchedAccount(up.userId);
    const mint = () =>
      trpc(service, 'dashboard.keys.create', {
        cookie: up.cookie,
        accountId: legacy,
        mutation: true,
        input: { name: 'ci', tier: 'free' },
      });
    const invite = () =>
      trpc(service, 'dashboard.members.invite', {
        cookie: up.cookie,
        accountId: legacy,
        mutation: true,
        input: { email: `${unique('friend')}@example.com`, role: 'viewer' },
      });

    const name = unique('first');
    for (const refused of [await openAccount(up.cookie, name), await mint(), await invite()]) {
      expect(refused.status).toBe(403);
      expect(refused.body.error.data).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'EMAIL_NOT_VERIFIED' } });
      expect(refused.body.error.message).toContain('Confirm your email address first');
    }
    expect(await accountsNamed(name)).toBe(0);
    const keys = await service.db.selectFrom('apiKeys').select('id').where('accountId', '=', legacy).execute();
    const invitations = await service.db
      .selectFrom('invitations')
      .select('id')
      .where('accountId', '=', legacy)
      .execute();
    expect({ keys: keys.length, invitations: invitations.length }).toEqual({ keys: 0, invitations: 0 });

    const mail = await inbox.waitFor((m) => m.to === who.email && /confirm/i.test(m.subject));
    const link = linkIn(mail.text, `${service.config.publicBaseUrl}/dashboard/api/auth/verify-email?token=`);
    expect((await fetch(link, { redirect: 'manual', headers: { 'x-forwarded-for': randomIp() } })).status).toBe(302);

    expect((await openAccount(up.cookie, name)).status).toBe(200);
    expect((await mint()).status).toBe(200);
    expect((await invite()).status).toBe(200);
    // confirming vouched for the account they owned already
    const row = await service.db
      .selectFrom('accounts')
      .select('vouched')
      .where('id', '=', legacy)
      .executeTakeFirstOrThrow();
    expect(row.vouched).toBe(true);
  });

  it('a person opens at most 3 accounts: the 4th is 403 and creates nothing', async () => {
    const up = await signUpOpen(service, person('many'));
    for (let i = 0; i < 3; i++) expect((await openAccount(up.cookie, unique(`own-${i}`))).status).toBe(200);
    const fourth = unique('own-3');
    const refused = await openAccount(up.cookie, fourth);
    expect(refused.status).toBe(403);
    expect(refused.body.error.data).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'ACCOUNTS_PER_USER' } });
    expect(await accountsNamed(fourth)).toBe(0);
  });

  it('one client network opens at most DASHBOARD_ACCOUNTS_PER_NETWORK_PER_DAY accounts a day: then 429', async () => {
    const ip = randomIp();
    const first = await signUpOpen(service, person('net-a'));
    const second = await signUpOpen(service, person('net-b'));
    for (let i = 0; i < 3; i++) expect((await openAccount(first.cookie, unique('net'), ip)).status).toBe(200);
    expect((await openAccount(second.cookie, unique('net'), ip)).status).toBe(200);

    const name = unique('net-over');
    const refused = await openAccount(second.cookie, name, ip);
    expect(refused.status).toBe(429);
    expect(refused.body.error.data).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 4, scope: 'ip' } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await accountsNamed(name)).toBe(0);
    // another network is not held by it
    expect((await openAccount(second.cookie, name)).status).toBe(200);
  });
});

/** A sign-up's answer with what differs between any two sign-ups (the new user's id, the clock) left out. */
async function signUpAnswer(user: { email: string; password: string; name: string }) {
  const res = await fetch(`${service.url}/dashboard/api/auth/sign-up/email`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: service.config.publicBaseUrl,
      'x-forwarded-for': randomIp(),
    },
    body: JSON.stringify(user),
  });
  const body = (await res.json()) as { user: Record<string, unknown> };
  const { id, createdAt, updatedAt, ...rest } = body.user;
  expect([typeof id, typeof createdAt, typeof updatedAt]).toEqual(['string', 'string', 'string']);
  return { status: res.status, cookies: res.headers.getSetCookie().length, body: { ...body, user: rest } };
}

describe('open sign-up does not tell which addresses have a sign-in', () => {
  it('a known address is answered exactly as an unknown one; no second user, and its owner is told', async () => {
    const owner = await createMember(service, 'owner');
    const stranger = person('stranger');
    const known = await signUpAnswer({ email: owner.email, password: 'an-attackers-password', name: stranger.name });
    const unknown = await signUpAnswer(stranger);
    expect(known).toEqual({
      ...unknown,
      body: { ...unknown.body, user: { ...unknown.body.user, email: owner.email } },
    });
    expect(known).toMatchObject({ status: 200, cookies: 0 });

    const users = await service.db.selectFrom('users').select('id').where('email', '=', owner.email).execute();
    expect(users).toEqual([{ id: owner.userId }]);
    expect((await signIn(service, { email: owner.email, password: 'an-attackers-password' })).status).toBe(401);
    expect((await signIn(service, owner)).status).toBe(200);
    await inbox.waitFor((m) => m.to === owner.email && /tried to sign up/i.test(m.subject));
    await inbox.waitFor((m) => m.to === stranger.email && /confirm/i.test(m.subject));
  });

  it("a new person's sign-up carries no session either: they sign in next with what they chose", async () => {
    const who = person('plain');
    expect((await signUp(service, who)).cookie).toBe('');
    expect((await signIn(service, who)).status).toBe(200);
  });
});

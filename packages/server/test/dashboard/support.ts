import { randomUUID } from 'node:crypto';
import { freePort } from '../../src/system/ports.ts';
import { newInvitationToken, tokenHash } from '../../src/accounts/invitation-tokens.ts';
import type { Role } from '../../src/accounts/roles.ts';
import type { Clock } from '../../src/clock.ts';
import { runCli } from '../support/cli.ts';
import { randomIp, startTestService, type TestService } from '../support/service.ts';

/**
 * The service on a fixed port reached as http://localhost:PORT: the dashboard's cookies, trusted origin and passkey
 * relying party all follow PUBLIC_BASE_URL, so it must be the address browsers and tests use.
 */
export async function startDashboardService(
  opts: { env?: Record<string, string>; worker?: boolean; clock?: Clock } = {},
): Promise<TestService> {
  const port = await freePort();
  return startTestService({
    worker: opts.worker ?? false,
    clock: opts.clock,
    env: {
      LOG_LEVEL: process.env.DASH_LOG ?? 'silent',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://localhost:${port}`,
      ...opts.env,
    },
  });
}

/** A signed-in member: their cookie header, and what calls need to act as them. */
export interface TestMember {
  userId: string;
  email: string;
  password: string;
  accountId: string;
  accountName: string;
  role: Role;
  cookie: string;
}

let seq = 0;

/** An invitation row for `email` (or anyone), as the owner setup link or an owner's invitation makes it. */
export async function seedInvitation(
  service: TestService,
  invitation: { accountId: string | null; email: string | null; role: Role; kind?: string },
): Promise<string> {
  const token = newInvitationToken();
  await service.db
    .insertInto('invitations')
    .values({
      id: randomUUID(),
      kind: invitation.kind ?? 'member',
      tokenHash: Buffer.from(tokenHash(token)),
      tokenSealed: 'test',
      accountId: invitation.accountId,
      email: invitation.email,
      role: invitation.role,
      expiresAt: new Date(Date.now() + 24 * 60 * 60_000),
    })
    .execute();
  return token;
}

/** Signs up through better-auth's endpoint with an invitation token; returns the session cookie. */
export async function signUp(
  service: TestService,
  user: { email: string; password: string; name: string },
  token?: string,
): Promise<{ status: number; cookie: string; body: any }> {
  const res = await fetch(`${service.url}/dashboard/api/auth/sign-up/email`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: service.config.publicBaseUrl,
      'x-forwarded-for': randomIp(),
      ...(token ? { 'x-invitation-token': token } : {}),
    },
    body: JSON.stringify(user),
  });
  return { status: res.status, cookie: cookieOf(res), body: await res.json().catch(() => undefined) };
}

/** Marks an address confirmed, as its mailed link does (the tests of confirmation itself open the link). */
export async function confirmAddress(service: TestService, email: string): Promise<void> {
  await service.db.updateTable('users').set({ emailVerified: true }).where('email', '=', email.toLowerCase()).execute();
}

/**
 * Open sign-up as the page makes it: sign up (the answer carries no session, whatever the address), confirm the
 * address unless `confirmed` is false, then sign in; the cookie is the sign-in's.
 */
export async function signUpOpen(
  service: TestService,
  user: { email: string; password: string; name: string },
  opts: { confirmed?: boolean } = {},
): Promise<{ status: number; cookie: string; userId: string }> {
  const up = await signUp(service, user);
  if (up.status !== 200) return { status: up.status, cookie: '', userId: '' };
  if (opts.confirmed !== false) await confirmAddress(service, user.email);
  const signedIn = await signIn(service, user);
  return { status: signedIn.status, cookie: signedIn.cookie, userId: signedIn.body?.user?.id as string };
}

/** Signs in with email and password; returns the session cookie. */
export async function signIn(
  service: TestService,
  user: { email: string; password: string },
  headers: Record<string, string> = {},
): Promise<{ status: number; cookie: string; body: any }> {
  const res = await fetch(`${service.url}/dashboard/api/auth/sign-in/email`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: service.config.publicBaseUrl,
      'x-forwarded-for': randomIp(),
      ...headers,
    },
    body: JSON.stringify(user),
  });
  return { status: res.status, cookie: cookieOf(res), body: await res.json().catch(() => undefined) };
}

/** The `name=value` pairs of a response's Set-Cookie headers, as a Cookie header. */
export function cookieOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

/** The token of an invitation link (its last path segment). */
export const tokenOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1);

/** A new person who signs up with an invitation link and accepts it, as a browser would; returns their session. */
async function signUpAndAccept(
  service: TestService,
  link: string,
  who: { email: string; password: string; name: string },
): Promise<{ userId: string; cookie: string }> {
  const token = tokenOf(link);
  const up = await signUp(service, who, token);
  if (up.status !== 200) throw new Error(`sign-up failed: ${up.status} ${JSON.stringify(up.body)}`);
  // open sign-up's answer carries no session (whatever the address): the page signs in next
  const cookie = up.cookie || (await signIn(service, who)).cookie;
  const accepted = await trpc(service, 'dashboard.invitations.accept', {
    cookie,
    mutation: true,
    input: { token },
  });
  if (accepted.status !== 200) throw new Error(`accept failed: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return { userId: up.body.user.id as string, cookie };
}

/**
 * A new account with a signed-in member of that role (its own account and user: each test its own tenant), or a
 * member of `accountId`. They join the real way: an invitation made as the operator's CLI makes it, then sign-up
 * and `dashboard.invitations.accept` (so the account's audit log holds `member.invited` and `member.joined`).
 */
export async function createMember(
  service: TestService,
  role: Role = 'owner',
  accountId?: string,
): Promise<TestMember> {
  const n = `${process.pid}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;
  const account =
    accountId ??
    (
      await service.db
        .insertInto('accounts')
        .values({ id: randomUUID(), name: `dash-${n}`, nameKey: `dash-${n}` })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const email = `member-${n}@example.com`;
  const password = `pw-${n}-long-enough`;
  const link = await service.services.invitations.inviteMember({
    accountId: account,
    email,
    role,
    actor: null,
    origin: null,
  });
  const { userId, cookie } = await signUpAndAccept(service, link.url, { email, password, name: `Member ${n}` });
  const row = await service.db
    .selectFrom('accounts')
    .select('name')
    .where('id', '=', account)
    .executeTakeFirstOrThrow();
  return { userId, email, password, accountId: account, accountName: row.name, role, cookie };
}

/** A signed-in member of the operator's support team (invited as `accounts invite --support` does), in no account. */
export async function createSupportUser(
  service: TestService,
): Promise<{ userId: string; email: string; cookie: string }> {
  const n = `${process.pid}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;
  const email = `support-${n}@example.com`;
  const link = await service.services.invitations.inviteSupport(email);
  const { userId, cookie } = await signUpAndAccept(service, link.url, {
    email,
    password: `pw-${n}-long-enough`,
    name: `Support ${n}`,
  });
  return { userId, email, cookie };
}

/** A tRPC call as a member: a query by GET, a mutation by POST (same origin), with the account header. */
export async function trpc(
  service: TestService,
  path: string,
  opts: { cookie?: string; input?: unknown; mutation?: boolean; accountId?: string; headers?: Record<string, string> },
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.accountId) headers['x-account-id'] = opts.accountId;
  let res: Response;
  if (opts.mutation) {
    headers['content-type'] = 'application/json';
    headers.origin ??= service.config.publicBaseUrl;
    res = await fetch(`${service.url}/trpc/${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(opts.input ?? null),
    });
  } else {
    const q = opts.input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(opts.input))}`;
    res = await fetch(`${service.url}/trpc/${path}${q}`, { headers });
  }
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** The operator's CLI against this service's database, as `attestation-service …` on its machine. */
export function serviceCli(service: TestService, ...args: string[]) {
  const env = {
    ...process.env,
    DATABASE_URL: service.databaseUrl,
    PUBLIC_BASE_URL: service.config.publicBaseUrl,
    LOG_LEVEL: 'warn',
  };
  return runCli(env, ...args);
}

/** A name no other test (or run) uses. */
export const unique = (tag: string) => `${tag}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

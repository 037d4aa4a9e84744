import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPasskeyRegistered } from '../../src/dashboard/password-reset.ts';
import { linkIn, startInbox, type Inbox } from '../mail/inbox.ts';
import { randomIp, type TestService } from '../support/service.ts';
import { createMember, signIn, signUp, startDashboardService, unique } from './support.ts';

let inbox: Inbox;
let service: TestService;

beforeAll(async () => {
  inbox = await startInbox();
  service = await startDashboardService({
    worker: true,
    env: {
      SMTP_URL: inbox.smtpUrl,
      MAIL_FROM: 'Attestation Service <no-reply@service.test>',
      DASHBOARD_SIGNUP: 'open',
    },
  });
});
afterAll(async () => {
  await service?.stop();
  await inbox?.stop();
});

async function auth(path: string, body: unknown) {
  const res = await fetch(`${service.url}/dashboard/api/auth${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: service.config.publicBaseUrl,
      'x-forwarded-for': randomIp(),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as unknown };
}

const seen = new Set<string>();

/** Asks for a reset and returns the token of the link mailed for it (one not returned before). */
async function resetToken(email: string): Promise<string> {
  expect((await auth('/request-password-reset', { email })).status).toBe(200);
  const prefix = `${service.config.publicBaseUrl}/dashboard/reset-password?token=`;
  const tokenIn = (text: string) => new URL(linkIn(text, prefix)).searchParams.get('token')!;
  const mail = await inbox.waitFor((m) => m.to === email && /reset/i.test(m.subject) && !seen.has(tokenIn(m.text)));
  const token = tokenIn(mail.text);
  seen.add(token);
  return token;
}

const resetRows = (userId: string) =>
  service.db.selectFrom('verifications').select('identifier').where('value', '=', userId).execute();

async function addPasskey(userId: string, registeredUnconfirmed: boolean): Promise<string> {
  const id = randomUUID();
  await service.db
    .insertInto('passkeys')
    .values({
      id,
      name: 'key',
      publicKey: 'pk',
      userId,
      credentialId: randomUUID(),
      counter: 0,
      deviceType: 'singleDevice',
      backedUp: false,
      registeredUnconfirmed,
    })
    .execute();
  return id;
}

const passkeysOf = async (userId: string) =>
  (await service.db.selectFrom('passkeys').select('id').where('userId', '=', userId).execute()).map((r) => r.id);

describe('password reset tokens at rest', () => {
  it('stores no token that opens a reset link, and a newer reset ends the older one', async () => {
    const member = await createMember(service, 'owner');
    const older = await resetToken(member.email);
    const newer = await resetToken(member.email);
    expect(newer).not.toBe(older);

    const rows = await resetRows(member.userId);
    expect(rows).toHaveLength(1);
    const dump = JSON.stringify(await service.db.selectFrom('verifications').selectAll().execute());
    expect(dump).not.toContain(older);
    expect(dump).not.toContain(newer);
    // each stored identifier, whole or past its prefix, tried as the token
    for (const { identifier } of rows)
      for (const token of [identifier, identifier.slice(identifier.indexOf(':') + 1)])
        expect((await auth('/reset-password', { token, newPassword: 'stolen-password-123' })).status).toBe(400);

    expect((await auth('/reset-password', { token: older, newPassword: 'older-password-123' })).status).toBe(400);
    expect((await auth('/reset-password', { token: newer, newPassword: 'newer-password-123' })).status).toBe(200);
    expect((await signIn(service, { email: member.email, password: 'newer-password-123' })).status).toBe(200);
    expect(await resetRows(member.userId)).toEqual([]);
  });

  it('a reset-password row from before hashing still opens its link once, and is then gone', async () => {
    // as the migration leaves none, a plain row is one an older replica wrote during the rollout
    const member = await createMember(service, 'owner');
    const token = `plain${unique('t').replaceAll('-', '')}`;
    await service.db
      .insertInto('verifications')
      .values({
        id: randomUUID(),
        identifier: `reset-password:${token}`,
        value: member.userId,
        expiresAt: new Date(Date.now() + 60 * 60_000),
      })
      .execute();
    expect((await auth('/reset-password', { token, newPassword: 'plain-row-password-1' })).status).toBe(200);
    expect(await resetRows(member.userId)).toEqual([]);
  });
});

describe('passkeys added before the address was confirmed', () => {
  it('are deleted by a password reset; passkeys added once confirmed stay', async () => {
    const member = await createMember(service, 'owner');
    const before = await addPasskey(member.userId, true);
    const after = await addPasskey(member.userId, false);
    const token = await resetToken(member.email);
    expect((await auth('/reset-password', { token, newPassword: 'reset-password-4321' })).status).toBe(200);
    expect(await passkeysOf(member.userId)).toEqual([after]);
    expect(before).not.toBe(after);
  });

  it('are marked when registered while the address is unconfirmed, not after', async () => {
    const email = `${unique('prehijack')}@example.com`;
    const up = await signUp(service, { email, password: 'pre-hijacker-password', name: 'Pre' });
    expect(up.status).toBe(200);
    const userId = up.body.user.id as string;
    const db = service.infrastructure.db;
    const early = await addPasskey(userId, false);
    await onPasskeyRegistered(db, { id: early, userId });
    await service.db.updateTable('users').set({ emailVerified: true }).where('id', '=', userId).execute();
    const late = await addPasskey(userId, false);
    await onPasskeyRegistered(db, { id: late, userId });
    const flags = await service.db
      .selectFrom('passkeys')
      .select(['id', 'registeredUnconfirmed'])
      .where('userId', '=', userId)
      .orderBy('registeredUnconfirmed', 'desc')
      .execute();
    expect(flags).toEqual([
      { id: early, registeredUnconfirmed: true },
      { id: late, registeredUnconfirmed: false },
    ]);
  });
});

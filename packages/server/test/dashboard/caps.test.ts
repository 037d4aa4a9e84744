import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { MAX_PENDING_INVITATIONS } from '../../src/accounts/invitations.ts';
import { MAX_SESSIONS_PER_USER } from '../../src/dashboard/session-cap.ts';
import { MAX_ACTIVE_KEYS } from '../../src/keys/key-cap.ts';
import type { TestService } from '../support/service.ts';
import { createMember, signIn, startDashboardService, trpc } from './support.ts';

let service: TestService;
beforeAll(async () => {
  service = await startDashboardService();
});
afterAll(() => service?.stop());

const DAY = 24 * 60 * 60_000;

/** `count` keys of the account straight into the table, revoked or not. */
async function seedKeys(accountId: string, count: number, revoked = false): Promise<void> {
  const key = () => ({
    id: randomUUID(),
    accountId,
    prefix: randomBytes(6).toString('hex'),
    secretHash: Buffer.from([0]),
    tier: 'free',
    revokedAt: revoked ? new Date() : null,
  });
  await service.db
    .insertInto('apiKeys')
    .values(Array.from({ length: count }, key))
    .execute();
}

describe('caps per account', () => {
  it(`holds an account to ${MAX_ACTIVE_KEYS} active API keys, from the dashboard and the CLI alike`, async () => {
    const owner = await createMember(service, 'owner');
    await seedKeys(owner.accountId, MAX_ACTIVE_KEYS - 1);
    await seedKeys(owner.accountId, 5, true); // revoked keys do not count
    const mint = (name: string) =>
      trpc(service, 'dashboard.keys.create', {
        cookie: owner.cookie,
        accountId: owner.accountId,
        mutation: true,
        input: { name, tier: 'free' },
      });
    const last = await mint('fiftieth');
    expect(last.status).toBe(200);
    const refused = await mint('one too many');
    expect(refused.status).toBe(400);
    expect(refused.body.error.data).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { errors: [{ path: '', message: `at most ${MAX_ACTIVE_KEYS} active API keys` }] },
    });
    const byCli = await service.services.keys.create({ tier: 'pro', account: { id: owner.accountId } }).catch((e) => e);
    expect(byCli).toBeInstanceOf(AppError);
    const keyCount = await service.db
      .selectFrom('apiKeys')
      .select('id')
      .where('accountId', '=', owner.accountId)
      .where('revokedAt', 'is', null)
      .execute();
    expect(keyCount).toHaveLength(MAX_ACTIVE_KEYS);

    await service.services.keys.revoke(last.body.result.data.prefix);
    expect((await mint('after a revoke')).status).toBe(200);
  }, 60_000);

  it(`holds an account to ${MAX_PENDING_INVITATIONS} pending invitations; a revoked one frees a place`, async () => {
    const owner = await createMember(service, 'owner');
    const invite = (i: number) =>
      trpc(service, 'dashboard.members.invite', {
        cookie: owner.cookie,
        accountId: owner.accountId,
        mutation: true,
        input: { email: `invitee-${i}@example.com`, role: 'viewer' },
      });
    const { invitations } = service.services;
    for (let i = 1; i < MAX_PENDING_INVITATIONS; i++)
      await invitations.inviteMember({
        accountId: owner.accountId,
        email: `seed-${i}@example.com`,
        role: 'viewer',
        actor: null,
        origin: null,
      });
    const last = await invite(0);
    expect(last.status).toBe(200);
    const refused = await invite(1);
    expect(refused.status).toBe(400);
    expect(refused.body.error.data).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining(`at most ${MAX_PENDING_INVITATIONS} pending invitations`),
    });
    const revoked = await trpc(service, 'dashboard.members.revokeInvitation', {
      cookie: owner.cookie,
      accountId: owner.accountId,
      mutation: true,
      input: { id: last.body.result.data.id },
    });
    expect(revoked.status).toBe(200);
    expect((await invite(2)).status).toBe(200);
  }, 60_000);

  it(`keeps a person's ${MAX_SESSIONS_PER_USER} newest sessions: a sign-in past the cap ends the oldest`, async () => {
    const member = await createMember(service, 'viewer');
    // the member's own session, from joining, is made the oldest; ten more from other devices follow it
    const now = Date.now();
    await service.db
      .updateTable('sessions')
      .set({ createdAt: new Date(now - DAY) })
      .where('userId', '=', member.userId)
      .execute();
    const session = (_: unknown, i: number) => ({
      id: randomUUID(),
      token: randomBytes(16).toString('hex'),
      userId: member.userId,
      expiresAt: new Date(now + DAY),
      createdAt: new Date(now - (i + 1) * 60_000),
      updatedAt: new Date(now - (i + 1) * 60_000),
    });
    await service.db
      .insertInto('sessions')
      .values(Array.from({ length: MAX_SESSIONS_PER_USER }, session))
      .execute();
    const fresh = await signIn(service, member);
    expect(fresh.status).toBe(200);
    const sessions = await service.db
      .selectFrom('sessions')
      .select('createdAt')
      .where('userId', '=', member.userId)
      .orderBy('createdAt')
      .execute();
    expect(sessions).toHaveLength(MAX_SESSIONS_PER_USER);
    expect((await trpc(service, 'dashboard.session.me', { cookie: fresh.cookie })).status).toBe(200);
    // the oldest, the member's first, was ended
    expect((await trpc(service, 'dashboard.session.me', { cookie: member.cookie })).status).toBe(401);
  }, 60_000);
});

describe('dashboard.members.list', () => {
  it('pages the members oldest first with a cursor, and refuses a cursor it did not issue', async () => {
    const owner = await createMember(service, 'owner');
    for (const role of ['admin', 'developer', 'viewer'] as const) await createMember(service, role, owner.accountId);
    const list = (input: unknown) =>
      trpc(service, 'dashboard.members.list', { cookie: owner.cookie, accountId: owner.accountId, input });
    const first = (await list({ limit: 2 })).body.result.data;
    expect(first.data.map((m: { role: string }) => m.role)).toEqual(['owner', 'admin']);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = (await list({ limit: 2, cursor: first.nextCursor })).body.result.data;
    expect(second.data.map((m: { role: string }) => m.role)).toEqual(['developer', 'viewer']);
    expect(second.nextCursor).toBeNull();
    const all = (await list(undefined)).body.result.data;
    expect(all.data).toHaveLength(4);
    expect(all.nextCursor).toBeNull();

    for (const cursor of ['nope', Buffer.from(`2026-02-30T00:00:00.000Z|${randomUUID()}`).toString('base64url')]) {
      const bad = await list({ limit: 2, cursor });
      expect(bad.status).toBe(400);
      expect(bad.body.error.data).toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    expect((await list({ limit: 101 })).status).toBe(400);
  }, 60_000);
});

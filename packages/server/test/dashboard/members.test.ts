import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertMember, lastAuditEntry } from '../support/db.ts';
import type { Role } from '../../src/accounts/roles.ts';
import type { TestService } from '../support/service.ts';
import { createMember, startDashboardService, tokenOf, trpc, type TestMember } from './support.ts';

let service: TestService;
beforeAll(async () => {
  service = await startDashboardService();
});
afterAll(() => service.stop());

/** A call as `as`, acting in `accountId` (their own account unless named). */
const call = (as: TestMember, path: string, input?: unknown, accountId = as.accountId) =>
  trpc(service, `dashboard.members.${path}`, {
    cookie: as.cookie,
    accountId,
    input,
    mutation: path !== 'list',
  });

const rolesIn = async (accountId: string) =>
  Object.fromEntries(
    (
      await service.db.selectFrom('members').select(['userId', 'role']).where('accountId', '=', accountId).execute()
    ).map((r) => [r.userId, r.role]),
  );

const lastAudit = (accountId: string) => lastAuditEntry(service.db, accountId);

describe('dashboard.members', () => {
  it('lists the members and the pending invitations with links that work', async () => {
    const owner = await createMember(service, 'owner');
    const dev = await createMember(service, 'developer', owner.accountId);
    const invited = await call(owner, 'invite', { email: 'pending@example.com', role: 'viewer' });
    expect(invited.status).toBe(200);

    const list = await call(owner, 'list');
    expect(list.status).toBe(200);
    const { data: members, invitations } = list.body.result.data;
    expect(members).toEqual([
      expect.objectContaining({ userId: owner.userId, email: owner.email, role: 'owner' }),
      expect.objectContaining({ userId: dev.userId, email: dev.email, role: 'developer' }),
    ]);
    expect(invitations).toEqual([
      {
        id: invited.body.result.data.id,
        email: 'pending@example.com',
        role: 'viewer',
        url: invited.body.result.data.url,
        expiresAt: invited.body.result.data.expiresAt,
        createdAt: expect.any(String),
      },
    ]);
    const view = await trpc(service, 'dashboard.invitations.get', { input: { token: tokenOf(invitations[0].url) } });
    expect(view.body.result.data).toMatchObject({ kind: 'member', email: 'pending@example.com', role: 'viewer' });
  });

  it('refuses every members procedure to admins, developers and viewers (403), changing nothing', async () => {
    const owner = await createMember(service, 'owner');
    const before = await rolesIn(owner.accountId);
    for (const role of ['admin', 'developer', 'viewer'] as Role[]) {
      const m = await createMember(service, role, owner.accountId);
      const calls = [
        call(m, 'list'),
        call(m, 'invite', { email: 'x@example.com', role: 'owner' }),
        call(m, 'revokeInvitation', { id: crypto.randomUUID() }),
        call(m, 'setRole', { userId: m.userId, role: 'owner' }),
        call(m, 'remove', { userId: owner.userId }),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.status).toBe(403);
        expect(res.body.error.data.code).toBe('FORBIDDEN');
      }
    }
    expect(await rolesIn(owner.accountId)).toMatchObject(before);
    const pending = await service.db
      .selectFrom('invitations')
      .select('id')
      .where('email', '=', 'x@example.com')
      .execute();
    expect(pending.length).toBe(0);
  });

  it("changes a member's role, audited with the owner as actor", async () => {
    const owner = await createMember(service, 'owner');
    const dev = await createMember(service, 'developer', owner.accountId);
    const res = await call(owner, 'setRole', { userId: dev.userId, role: 'admin' });
    expect(res.status).toBe(200);
    const me = await trpc(service, 'dashboard.session.me', { cookie: dev.cookie });
    expect(me.body.result.data.memberships[0].role).toBe('admin');
    expect(await lastAudit(owner.accountId)).toEqual({
      action: 'member.role_changed',
      details: expect.objectContaining({
        email: dev.email,
        from: 'developer',
        to: 'admin',
        actor: expect.objectContaining({ email: owner.email, userId: owner.userId, role: 'owner' }),
      }),
    });
  });

  it('removes a member: their next call in the account is NOT_FOUND; audited', async () => {
    const owner = await createMember(service, 'owner');
    const viewer = await createMember(service, 'viewer', owner.accountId);
    expect((await call(owner, 'remove', { userId: viewer.userId })).status).toBe(200);
    const after = await trpc(service, 'dashboard.session.me', { cookie: viewer.cookie });
    expect(after.body.result.data.memberships).toEqual([]);
    expect((await call(owner, 'setRole', { userId: viewer.userId, role: 'admin' })).status).toBe(404);
    expect(await lastAudit(owner.accountId)).toMatchObject({
      action: 'member.removed',
      details: { email: viewer.email, role: 'viewer', actor: { email: owner.email } },
    });
  });

  it('keeps the last owner: neither demoted nor removed; with a second owner, either may go', async () => {
    const owner = await createMember(service, 'owner');
    for (const res of [
      await call(owner, 'setRole', { userId: owner.userId, role: 'admin' }),
      await call(owner, 'remove', { userId: owner.userId }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.message).toMatch(/last owner/);
    }
    const second = await createMember(service, 'admin', owner.accountId);
    expect((await call(owner, 'setRole', { userId: second.userId, role: 'owner' })).status).toBe(200);
    expect((await call(owner, 'setRole', { userId: owner.userId, role: 'viewer' })).status).toBe(200);
    expect((await call(second, 'remove', { userId: second.userId })).status).toBe(403);
    expect(await rolesIn(owner.accountId)).toEqual({ [owner.userId]: 'viewer', [second.userId]: 'owner' });
  });

  it('leaves one owner when two owners demote each other at the same moment', async () => {
    const a = await createMember(service, 'owner');
    const b = await createMember(service, 'owner', a.accountId);
    const results = await Promise.all([
      call(a, 'setRole', { userId: b.userId, role: 'viewer' }),
      call(b, 'setRole', { userId: a.userId, role: 'viewer' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 403]);
    expect(Object.values(await rolesIn(a.accountId)).sort()).toEqual(['owner', 'viewer']);

    // the service itself, many times over, where the window between counting and changing is widest
    const { members } = service.services;
    const origin = { requestId: 'race', ip: '127.0.0.1' };
    const actor = (m: TestMember) => ({ userId: m.userId, email: m.email, role: 'owner' });
    for (let i = 0; i < 10; i++) {
      await service.db.updateTable('members').set({ role: 'owner' }).where('accountId', '=', a.accountId).execute();
      const outcomes = await Promise.allSettled([
        members.setRole({ accountId: a.accountId, actor: actor(a), origin }, b.userId, 'viewer'),
        members.remove({ accountId: a.accountId, actor: actor(b), origin }, a.userId),
      ]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(Object.values(await rolesIn(a.accountId))).toContain('owner');
      if (outcomes[1].status === 'fulfilled')
        await insertMember(service.db, { accountId: a.accountId, userId: a.userId, role: 'owner' });
    }
  });

  it('revokes a pending invitation: its link stops working', async () => {
    const owner = await createMember(service, 'owner');
    const { id, url } = (await call(owner, 'invite', { email: 'revoked@example.com', role: 'admin' })).body.result.data;
    expect((await call(owner, 'revokeInvitation', { id })).status).toBe(200);
    expect((await trpc(service, 'dashboard.invitations.get', { input: { token: tokenOf(url) } })).status).toBe(404);
    expect((await call(owner, 'list')).body.result.data.invitations).toEqual([]);
    expect((await call(owner, 'revokeInvitation', { id })).status).toBe(404);
    expect(await lastAudit(owner.accountId)).toMatchObject({
      action: 'member.invitation_revoked',
      details: { email: 'revoked@example.com', actor: { email: owner.email } },
    });
  });

  it('refuses to invite a member again (409)', async () => {
    const owner = await createMember(service, 'owner');
    const dev = await createMember(service, 'developer', owner.accountId);
    const res = await call(owner, 'invite', { email: dev.email, role: 'admin' });
    expect(res.status).toBe(409);
    expect(res.body.error.data.code).toBe('ALREADY_EXISTS');
  });

  it("gives the owner of A nothing of B's people: NOT_FOUND, and B is unchanged", async () => {
    const a = await createMember(service, 'owner');
    const b = await createMember(service, 'owner');
    const bDev = await createMember(service, 'developer', b.accountId);
    const bInvite = (await call(b, 'invite', { email: 'b-pending@example.com', role: 'viewer' })).body.result.data;
    const before = await rolesIn(b.accountId);

    // naming account B
    for (const res of [
      await call(a, 'list', undefined, b.accountId),
      await call(a, 'invite', { email: 'intruder@example.com', role: 'owner' }, b.accountId),
      await call(a, 'revokeInvitation', { id: bInvite.id }, b.accountId),
      await call(a, 'setRole', { userId: bDev.userId, role: 'owner' }, b.accountId),
      await call(a, 'remove', { userId: bDev.userId }, b.accountId),
    ])
      expect(res.status).toBe(404);
    // acting in A on B's people
    for (const res of [
      await call(a, 'revokeInvitation', { id: bInvite.id }),
      await call(a, 'setRole', { userId: bDev.userId, role: 'owner' }),
      await call(a, 'remove', { userId: b.userId }),
    ])
      expect(res.status).toBe(404);

    expect(await rolesIn(b.accountId)).toEqual(before);
    expect((await call(b, 'list')).body.result.data.invitations.map((i: { id: string }) => i.id)).toEqual([bInvite.id]);
    const intruder = await service.db
      .selectFrom('invitations')
      .select('id')
      .where('email', '=', 'intruder@example.com');
    expect(await intruder.execute()).toEqual([]);
  });
});

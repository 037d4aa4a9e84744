import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAccount, lastAuditEntry } from '../support/db.ts';
import type { TestService } from '../support/service.ts';
import { createMember, seedInvitation, signUp, startDashboardService, trpc, unique } from './support.ts';

let service: TestService;
beforeAll(async () => {
  service = await startDashboardService();
});
afterAll(() => service?.stop());

const setupLink = () => seedInvitation(service, { kind: 'setup', accountId: null, email: null, role: 'owner' });
const view = (token: string) => trpc(service, 'dashboard.invitations.get', { input: { token } });
const accept = (cookie: string, input: { token: string; accountName?: string; accountId?: string }) =>
  trpc(service, 'dashboard.invitations.accept', { cookie, mutation: true, input });

/** A person signed up with the link's token, as the invite page's step 1 makes them. */
async function signedUp(token: string) {
  const email = `${unique('setup')}@example.com`;
  const up = await signUp(service, { email, password: 'setup-password-long', name: 'Setup' }, token);
  expect(up.status).toBe(200);
  return { email, userId: up.body.user.id as string, cookie: up.cookie };
}

/** An account a dashboard sign-up opened (DASHBOARD_SIGNUP=open), with nobody left in it. */
async function signUpAccount(): Promise<{ id: string; name: string }> {
  const name = unique('signed-up');
  const id = await insertAccount(service.db, { name, createdBy: 'dashboard' });
  return { id, name };
}

async function accountIdOf(name: string): Promise<string> {
  const row = await service.db.selectFrom('accounts').select('id').where('name', '=', name).executeTakeFirstOrThrow();
  return row.id;
}

describe('the owner setup link takes over an account the CLI opened', () => {
  it('lists the CLI accounts nobody is a member of, and no other', async () => {
    const cliMade = await service.createKey('free');
    const withMember = await createMember(service, 'developer');
    const signedUpAccount = await signUpAccount();
    const { adoptable } = (await view(await setupLink())).body.result.data;
    const names = adoptable.map((a: { name: string }) => a.name);
    expect(adoptable).toContainEqual({ id: await accountIdOf(cliMade.account), name: cliMade.account });
    expect(names).not.toContain(withMember.accountName);
    expect(names).not.toContain(signedUpAccount.name);
  });

  it('makes its opener the owner, with the keys the CLI made, audited; the link then never works again', async () => {
    const { account, prefix } = await service.createKey('pro');
    const accountId = await accountIdOf(account);
    const token = await setupLink();
    const person = await signedUp(token);
    const taken = await accept(person.cookie, { token, accountId });
    expect(taken.status).toBe(200);
    expect(taken.body.result.data).toEqual({ kind: 'setup', accountId });

    const me = await trpc(service, 'dashboard.session.me', { cookie: person.cookie });
    expect(me.body.result.data.memberships).toEqual([{ accountId, accountName: account, role: 'owner', plan: 'free' }]);
    const keys = await trpc(service, 'dashboard.keys.list', { cookie: person.cookie, accountId });
    expect(keys.body.result.data).toEqual([expect.objectContaining({ prefix, tier: 'pro' })]);
    expect(await lastAuditEntry(service.db, accountId)).toEqual({
      action: 'member.joined',
      details: {
        invitation: expect.any(String),
        role: 'owner',
        via: 'setup',
        actor: { type: 'member', userId: person.userId, email: person.email, role: 'owner' },
      },
    });

    expect((await accept(person.cookie, { token, accountId })).status).toBe(404);
    const names = (await view(await setupLink())).body.result.data.adoptable.map((a: { name: string }) => a.name);
    expect(names).not.toContain(account);
  });

  it('refuses an account with members, one a sign-up opened, an unknown one, and an unclear choice; the link stays usable', async () => {
    const token = await setupLink();
    const person = await signedUp(token);
    const owned = await createMember(service, 'viewer');
    const signedUpAccount = await signUpAccount();

    const members = await accept(person.cookie, { token, accountId: owned.accountId });
    expect(members.status).toBe(403);
    expect(members.body.error.data).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'HAS_MEMBERS' } });
    const stranger = await accept(person.cookie, { token, accountId: signedUpAccount.id });
    expect(stranger.status).toBe(403);
    expect(stranger.body.error.data).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'NOT_OPENED_BY_CLI' } });
    expect((await accept(person.cookie, { token, accountId: randomUUID() })).body.error.data.code).toBe('NOT_FOUND');
    const notUuid = await accept(person.cookie, { token, accountId: 'not-a-uuid' });
    expect(notUuid.body.error.data).toMatchObject({ code: 'VALIDATION_FAILED' });
    const both = await accept(person.cookie, { token, accountId: randomUUID(), accountName: unique('both') });
    expect(both.body.error.data).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { errors: [{ path: 'accountId' }] },
    });

    const rows = await service.db.selectFrom('members').select('id').where('userId', '=', person.userId).execute();
    expect(rows).toEqual([]);
    expect((await accept(person.cookie, { token, accountName: unique('fresh') })).status).toBe(200);
  });

  it('refuses accountId on a link other than a setup link', async () => {
    const { account } = await service.createKey('free');
    const owner = await createMember(service, 'owner');
    const token = await seedInvitation(service, { accountId: owner.accountId, email: null, role: 'viewer' });
    const person = await signedUp(token);
    const res = await accept(person.cookie, { token, accountId: await accountIdOf(account) });
    expect(res.body.error.data).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { errors: [{ path: 'accountId' }] },
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.ts';
import { createMember, serviceCli, signUp, startDashboardService, tokenOf, trpc, unique } from './support.ts';

let service: TestService;
beforeAll(async () => {
  service = await startDashboardService();
});
afterAll(() => service?.stop());

const cli = (...args: string[]) => serviceCli(service, ...args);

/** A new person signs up with the link's token and accepts it, as the invite page does. */
async function openLink(url: string, tag: string) {
  const token = tokenOf(url);
  const email = `${unique(tag)}@example.com`;
  const up = await signUp(service, { email, password: 'owner-link-password', name: tag }, token);
  expect(up.status).toBe(200);
  const accepted = await trpc(service, 'dashboard.invitations.accept', {
    cookie: up.cookie,
    mutation: true,
    input: { token },
  });
  return { email, cookie: up.cookie, accepted };
}

async function auditOf(accountId: string) {
  return service.db
    .selectFrom('auditEntries')
    .select(['action', 'details'])
    .where('accountId', '=', accountId)
    .orderBy('id')
    .execute();
}

describe('a CLI-opened account reaches the dashboard through its owner link', () => {
  it('keys create prints the owner link on stderr; whoever opens it first owns the account and sees the key', async () => {
    const account = unique('demo');
    const created = await cli('keys', 'create', '--tier', 'pro', '--account', account);
    expect(created.code).toBe(0);
    const [key] = created.stdout.trim().split('\n');
    const [line, use] = created.stderr.trim().split('\n');
    const url = /^dashboard owner link: (\S+)$/.exec(line!)?.[1];
    expect(url).toMatch(new RegExp(`^${service.config.publicBaseUrl}/dashboard/invite/[A-Za-z0-9_-]{43}$`));
    expect(use).toMatch(new RegExp(`whoever opens it first becomes the owner of account ${account} \\(id `));

    const first = await openLink(url!, 'first');
    expect(first.accepted.status).toBe(200);
    const { accountId } = first.accepted.body.result.data;
    const me = await trpc(service, 'dashboard.session.me', { cookie: first.cookie });
    expect(me.body.result.data.memberships).toEqual([
      expect.objectContaining({ accountId, accountName: account, role: 'owner' }),
    ]);
    const keys = await trpc(service, 'dashboard.keys.list', { cookie: first.cookie, accountId });
    expect(keys.body.result.data.map((k: { prefix: string }) => k.prefix)).toEqual([key!.split('_')[2]]);
    expect(await auditOf(accountId)).toEqual([
      { action: 'api_key.created', details: { tier: 'pro', via: 'cli' } },
      {
        action: 'member.invited',
        details: expect.objectContaining({ email: null, role: 'owner', via: 'cli' }),
      },
      {
        action: 'member.joined',
        details: expect.objectContaining({ role: 'owner', actor: expect.objectContaining({ email: first.email }) }),
      },
    ]);

    const reused = await trpc(service, 'dashboard.invitations.accept', {
      cookie: first.cookie,
      mutation: true,
      input: { token: tokenOf(url!) },
    });
    expect(reused.status).toBe(404);
  }, 60_000);

  it('--json carries the owner link as ownerLink; an existing account gets none', async () => {
    const account = unique('json');
    const opened = JSON.parse((await cli('keys', 'create', '--tier', 'free', '--account', account, '--json')).stdout);
    expect(opened.ownerLink).toEqual({
      url: expect.stringMatching(/\/dashboard\/invite\//),
      expiresAt: expect.any(String),
    });
    const again = await cli('keys', 'create', '--tier', 'free', '--account', account, '--json');
    expect(JSON.parse(again.stdout)).not.toHaveProperty('ownerLink');
    expect(again.stderr).toBe('');
  }, 60_000);

  it('accounts invite opening an account for a developer prints its owner link too', async () => {
    const account = unique('invite-dev');
    const args = ['accounts', 'invite', '--account', account, '--email', 'dev@example.com', '--role', 'developer'];
    const printed = JSON.parse((await cli(...args, '--no-mail', '--json')).stdout);
    expect(printed.ownerLink.url).toMatch(/\/dashboard\/invite\//);
    expect(printed.ownerLink.url).not.toBe(printed.url);
  }, 60_000);

  it('accounts owner-link makes one for an account with no owner, and refuses one that has an owner', async () => {
    const { account } = await service.createKey('free');
    const made = await cli('accounts', 'owner-link', '--account', account, '--json');
    expect(made.code).toBe(0);
    const link = JSON.parse(made.stdout);
    expect(link).toEqual({
      url: expect.stringMatching(/\/dashboard\/invite\//),
      expiresAt: expect.any(String),
      account,
      accountId: expect.any(String),
    });
    const text = await cli('accounts', 'owner-link', '--account', `id:${link.accountId}`);
    expect(text.stdout).toMatch(/^http\S+\/dashboard\/invite\/\S+\n\(whoever opens it first becomes the owner/);

    expect((await openLink(link.url, 'owner')).accepted.status).toBe(200);
    const refused = await cli('accounts', 'owner-link', '--account', account);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim()).toBe(
      `attestation-service: account ${account} (id ${link.accountId}) has an owner already; to add one, ` +
        `\`attestation-service accounts invite --account ${account} --email E --role owner\``,
    );

    // the other link, made before the owner joined, no longer grants ownership (it stays unused)
    const late = await openLink(text.stdout.split('\n')[0]!, 'late');
    expect(late.accepted.status).toBe(403);
    expect(late.accepted.body.error.data).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'HAS_OWNER' } });
  }, 60_000);

  it('owner-link of an unknown account, or without --account, says so', async () => {
    const unknown = await cli('accounts', 'owner-link', '--account', 'nobody-has-this-one');
    expect(unknown).toMatchObject({ code: 1, stderr: 'attestation-service: no account named nobody-has-this-one\n' });
    const usage = await cli('accounts', 'owner-link');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/owner-link needs --account/);
  }, 60_000);

  it('refuses an owner link for an account whose owner joined by an invitation', async () => {
    const owner = await createMember(service, 'owner');
    const refused = await cli('accounts', 'owner-link', '--account', `id:${owner.accountId}`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('has an owner already');
  }, 60_000);
});

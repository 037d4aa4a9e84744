import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.ts';
import { serviceCli, signUp, startDashboardService, tokenOf, trpc, unique } from './support.ts';

let service: TestService;
beforeAll(async () => {
  service = await startDashboardService();
});
afterAll(() => service?.stop());

const cli = (...args: string[]) => serviceCli(service, ...args);

/** The audit entries of the account named `account`, oldest or newest first. */
const auditOf = (account: string, order: 'asc' | 'desc') =>
  service.db
    .selectFrom('auditEntries as e')
    .innerJoin('accounts as a', 'a.id', 'e.accountId')
    .select(['e.action', 'e.details'])
    .where('a.name', '=', account)
    .orderBy('e.id', order)
    .limit(1)
    .execute();

/** Signs up with the link's token and accepts it; the accept's answer and the new session's `session.me`. */
async function join(url: string, email: string) {
  const token = tokenOf(url);
  const up = await signUp(service, { email, password: 'cli-password-long', name: email }, token);
  expect(up.status).toBe(200);
  const accepted = await trpc(service, 'dashboard.invitations.accept', {
    cookie: up.cookie,
    mutation: true,
    input: { token },
  });
  const me = await trpc(service, 'dashboard.session.me', { cookie: up.cookie });
  return { accepted, me: me.body.result.data };
}

describe('attestation-service accounts', () => {
  it('invite --json prints { url } of a link that lets the email join with the role (the account made if new)', async () => {
    const account = unique('cli-invite');
    const email = `${unique('owner')}@example.com`;
    const result = await cli('accounts', 'invite', '--account', account, '--email', email, '--role', 'owner', '--json');
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed).toEqual({
      url: expect.any(String),
      expiresAt: expect.any(String),
      account,
      accountId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(printed.url).toMatch(new RegExp(`^${service.config.publicBaseUrl}/dashboard/invite/[A-Za-z0-9_-]{43}$`));

    const { accepted, me } = await join(printed.url, email);
    expect(accepted.status).toBe(200);
    expect(me.memberships).toEqual([expect.objectContaining({ accountName: account, role: 'owner' })]);
    const [entry] = await auditOf(account, 'asc');
    expect(entry).toMatchObject({ action: 'member.invited', details: { email, role: 'owner', via: 'cli' } });
  }, 60_000);

  it('invite without --json prints the link and whom it is for', async () => {
    const account = unique('cli-text');
    const result = await cli(
      'accounts',
      'invite',
      '--account',
      account,
      '--email',
      'dev@example.com',
      '--role',
      'developer',
    );
    expect(result.code).toBe(0);
    const [url, note] = result.stdout.trim().split('\n');
    expect(url).toMatch(/\/dashboard\/invite\//);
    expect(note).toMatch(
      new RegExp(`dev@example.com: joins account ${account} \\(id [0-9a-f-]{36}, opened now\\) as developer`),
    );
  }, 60_000);

  it('invite --support makes a support-team link', async () => {
    const email = `${unique('support')}@example.com`;
    const result = await cli('accounts', 'invite', '--support', '--email', email, '--json');
    expect(result.code).toBe(0);
    const { accepted, me } = await join(JSON.parse(result.stdout).url, email);
    expect(accepted.body.result.data).toEqual({ kind: 'support', accountId: null });
    expect(me).toMatchObject({ support: true, memberships: [] });
  }, 60_000);

  it("set-plan changes the account's plan, audited as the CLI's; list shows it", async () => {
    const { account } = await service.createKey('free');
    const set = await cli('accounts', 'set-plan', account, 'enterprise');
    const row = await service.db
      .selectFrom('accounts')
      .select('id')
      .where('name', '=', account)
      .executeTakeFirstOrThrow();
    expect(set).toMatchObject({ code: 0, stdout: `account ${account} (id ${row.id}): plan enterprise\n` });
    const listed = (await cli('accounts', 'list', '--json')).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(listed).toContainEqual(expect.objectContaining({ name: account, plan: 'enterprise', members: 0 }));
    const [entry] = await auditOf(account, 'desc');
    expect(entry).toEqual({ action: 'account.plan_changed', details: { from: 'free', to: 'enterprise', via: 'cli' } });
    const table = (await cli('accounts', 'list')).stdout.split('\n');
    expect(table[0]).toMatch(/^NAME +PLAN +MEMBERS +CREATED$/);
  }, 60_000);

  it('set-plan of an unknown account says so and exits 1', async () => {
    const result = await cli('accounts', 'set-plan', 'nobody-has-this-account', 'pro');
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('attestation-service: no account named nobody-has-this-account');
  }, 60_000);

  it.each([
    [['accounts', 'invite', '--account', 'a', '--role', 'owner'], /--email/],
    [['accounts', 'invite', '--account', 'a', '--email', 'not-an-email', '--role', 'owner'], /--email/],
    [['accounts', 'invite', '--account', 'a', '--email', 'a@example.com', '--role', 'boss'], /--role/],
    [['accounts', 'invite', '--email', 'a@example.com', '--role', 'owner'], /--account/],
    [
      ['accounts', 'invite', '--support', '--email', 'a@example.com', '--role', 'owner'],
      /--support takes --email only/,
    ],
    [['accounts', 'set-plan', 'acme', 'gold'], /free\|pro\|enterprise/],
    [['accounts', 'frobnicate'], /unknown accounts command/],
  ])(
    '%j fails with a clear message and exit 2',
    async (args, message) => {
      const result = await cli(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    },
    60_000,
  );
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountNameKey, accountNameProblem } from '../../src/accounts/account-name.ts';
import type { TestService } from '../support/service.ts';
import { serviceCli, signUpOpen, startDashboardService, trpc, unique } from './support.ts';

let service: TestService;
beforeAll(async () => {
  // every opening here comes from the test's one address: the per-network cap is not what these tests are about
  service = await startDashboardService({
    env: { DASHBOARD_SIGNUP: 'open', DASHBOARD_ACCOUNTS_PER_NETWORK_PER_DAY: '10000' },
  });
});
afterAll(() => service?.stop());

const cli = (...args: string[]) => serviceCli(service, ...args);

/** Someone signs up (DASHBOARD_SIGNUP=open) and opens an account of this name in the dashboard. */
async function openInDashboard(name: string): Promise<{ status: number; accountId?: string; body: any }> {
  const n = unique('opener');
  const up = await signUpOpen(service, { email: `${n}@example.com`, password: `pw-${n}-long-enough`, name: n });
  expect(up.status).toBe(200);
  const res = await trpc(service, 'dashboard.accounts.create', { cookie: up.cookie, mutation: true, input: { name } });
  return { status: res.status, accountId: res.body?.result?.data?.accountId, body: res.body };
}

describe('the CLI never acts by name on an account opened in the dashboard', () => {
  it('keys create, accounts invite and set-plan by the name are refused, naming the id; by id:UUID they act', async () => {
    const name = unique('bigcorp');
    const opened = await openInDashboard(name);
    expect(opened.status).toBe(200);
    const id = opened.accountId!;

    for (const args of [
      ['keys', 'create', '--tier', 'enterprise', '--account', name],
      ['keys', 'create', '--tier', 'pro', '--account', name.toUpperCase()],
      ['accounts', 'invite', '--account', name, '--email', 'ceo@example.com', '--role', 'owner'],
      ['accounts', 'set-plan', name, 'enterprise'],
    ]) {
      const refused = await cli(...args);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain(`was opened in the dashboard`);
      expect(refused.stderr).toContain(`--account id:${id}`);
    }
    const account = await service.db
      .selectFrom('accounts')
      .select('plan')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const keys = await service.db.selectFrom('apiKeys').select('id').where('accountId', '=', id).execute();
    const invitations = await service.db.selectFrom('invitations').select('id').where('accountId', '=', id).execute();
    expect({ keys: keys.length, plan: account.plan, invitations: invitations.length }).toEqual({
      keys: 0,
      plan: 'free',
      invitations: 0,
    });

    const created = await cli('keys', 'create', '--tier', 'pro', '--account', `id:${id}`, '--json');
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ account: name, accountId: id, opened: false, tier: 'pro' });
    const text = await cli('keys', 'create', '--tier', 'free', '--account', `id:${id}`);
    expect(text.stdout).toContain(`account ${name} (id ${id}))`);
    const plan = await cli('accounts', 'set-plan', `id:${id}`, 'pro', '--json');
    expect(JSON.parse(plan.stdout)).toEqual({ account: name, accountId: id, plan: 'pro' });
    const invite = await cli(
      'accounts',
      'invite',
      '--account',
      `id:${id}`,
      '--email',
      'a@example.com',
      '--role',
      'viewer',
    );
    expect(invite.stdout).toContain(`joins account ${name} (id ${id}) as viewer`);
  }, 120_000);

  it('opens an account for a new name, and finds it again by any case; an unknown id or a bad one is refused', async () => {
    const name = unique('cli-opened');
    const first = JSON.parse((await cli('keys', 'create', '--tier', 'free', '--account', name, '--json')).stdout);
    expect(first).toMatchObject({ account: name, opened: true });
    const again = JSON.parse(
      (await cli('keys', 'create', '--tier', 'free', '--account', name.toUpperCase(), '--json')).stdout,
    );
    expect(again).toMatchObject({ account: name, accountId: first.accountId, opened: false });
    const row = await service.db
      .selectFrom('accounts')
      .select('createdBy')
      .where('id', '=', first.accountId)
      .executeTakeFirstOrThrow();
    expect(row.createdBy).toBe('cli');

    const unknown = await cli(
      'keys',
      'create',
      '--tier',
      'free',
      '--account',
      'id:00000000-0000-4000-8000-000000000000',
    );
    expect(unknown).toMatchObject({ code: 1 });
    expect(unknown.stderr).toContain('no account with id 00000000-0000-4000-8000-000000000000');
    const malformed = await cli('accounts', 'set-plan', 'id:nope', 'pro');
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('UUID');
  }, 120_000);
});

describe('account names: NFKC, any case, one account; no lookalikes or invisible characters', () => {
  it.each([
    ['аcme', 'Cyrillic а'],
    ['ac\u200Bme', 'a zero-width space'],
    ['acme\u202E', 'a bidi override'],
    ['ac\u00ADme', 'a soft hyphen'],
    ['ácme', 'an accented letter'],
    ['  ', 'nothing'],
    ['-acme', 'a leading separator'],
    ['a'.repeat(65), '65 characters'],
  ])('refuses %j (%s)', (name) => {
    expect(accountNameProblem(name)).toEqual(expect.any(String));
  });

  it('takes ASCII names and folds full-width forms and case for uniqueness', () => {
    for (const name of ['acme', 'Acme Inc.', 'acme_corp-2', 'a.b c']) expect(accountNameProblem(name)).toBeUndefined();
    expect(accountNameKey('ＡＣＭＥ')).toBe('acme');
    expect(accountNameKey(' ACME ')).toBe('acme');
  });

  it('dashboard.accounts.create: another case of a taken name is 409; lookalikes are 400 VALIDATION_FAILED', async () => {
    const name = unique('Lookalike');
    expect((await openInDashboard(name)).status).toBe(200);
    const taken = await openInDashboard(name.toLowerCase());
    expect(taken.status).toBe(409);
    expect(taken.body.error.data).toMatchObject({ code: 'ALREADY_EXISTS' });
    for (const lookalike of [name.replace('o', 'о'), `${name.slice(0, 3)}\u200D${name.slice(3)}`]) {
      const refused = await openInDashboard(lookalike);
      expect(refused.status).toBe(400);
      expect(refused.body.error.data).toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    const wide = await openInDashboard(`ＷＩＤＥ-${name}`);
    expect(wide.status).toBe(200);
    const [row] = await service.db
      .selectFrom('accounts')
      .select(['name', 'createdBy'])
      .where('id', '=', wide.accountId!)
      .execute();
    expect(row).toEqual({ name: `WIDE-${name}`, createdBy: 'dashboard' });
  }, 60_000);

  it('the CLI refuses to open an account under a lookalike name, and opens nothing', async () => {
    const result = await cli('keys', 'create', '--tier', 'free', '--account', 'аcme-cyrillic');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ASCII letters and digits only');
    const rows = await service.db.selectFrom('accounts').select('id').where('name', '=', 'аcme-cyrillic').execute();
    expect(rows).toHaveLength(0);
  }, 60_000);
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountNameKey, accountNameProblem, reservedAccountName } from '../../src/accounts/account-name.ts';
import { serviceCli, signUpOpen, startDashboardService, trpc, unique } from '../dashboard/support.ts';
import type { TestService } from '../support/service.ts';

describe('reserved account names', () => {
  it('refuses the reserved names, and names that hold a reserved phrase, in any case or spacing', () => {
    for (const name of ['admin', 'Support', 'Attestation Service', 'attestation-service', 'Official Refunds', 'ROOT'])
      expect(accountNameProblem(name), name).toMatch(/reserved for the service/);
    expect(reservedAccountName('Verified Partner')).toBe('verified');
    expect(reservedAccountName('Security')).toBe('security');
    expect(reservedAccountName('STAFF')).toBe('staff');
    expect(reservedAccountName('System')).toBe('system');
  });

  it('refuses look-alikes: digits for letters, letter pairs for one letter, separators between letters', () => {
    const lookalikes = { adm1n: 'admin', supp0rt: 'support', r00t: 'root', Sy5tem: 'system', 'a.d.m.i.n': 'admin' };
    for (const [name, reserved] of Object.entries(lookalikes)) expect(reservedAccountName(name), name).toBe(reserved);
    expect(reservedAccountName('Veri fied')).toBe('verified');
    expect(reservedAccountName('Attestation Servlce')).toBe('Attestation Service');
    expect(reservedAccountName('adrnin')).toBe('admin');
  });

  it('leaves other names alone', () => {
    // a short reserved word inside a longer name is an ordinary name
    for (const name of ['acme', 'Acme Inc.', 'Newsroom 7', 'Claims Desk', 'Grassroots', 'Ecosystem', 'Badminton Club'])
      expect(accountNameProblem(name), name).toBeUndefined();
  });
});

describe('every path that opens an account refuses a reserved name', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startDashboardService({
      env: { DASHBOARD_SIGNUP: 'open', DASHBOARD_ACCOUNTS_PER_NETWORK_PER_DAY: '10000' },
    });
  });
  afterAll(() => service?.stop());

  async function openInDashboard(name: string) {
    const n = unique('opener');
    const up = await signUpOpen(service, { email: `${n}@example.com`, password: `pw-${n}-long-enough`, name: n });
    return trpc(service, 'dashboard.accounts.create', { cookie: up.cookie, mutation: true, input: { name } });
  }

  it('dashboard sign-up: 400 VALIDATION_FAILED with a clear message', async () => {
    const refused = await openInDashboard('Official Support');
    expect(refused.status).toBe(400);
    expect(refused.body.error.data).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(JSON.stringify(refused.body.error.data.details)).toContain('reserved for the service');
    expect((await openInDashboard(unique('Claims Desk'))).status).toBe(200);
  });

  it('the CLI: keys create --account refuses to open an account of a reserved name', async () => {
    const refused = await serviceCli(service, 'keys', 'create', '--tier', 'free', '--account', 'Supp0rt');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('reserved for the service');
    const rows = await service.db
      .selectFrom('accounts')
      .select('id')
      .where('nameKey', '=', accountNameKey('Supp0rt'))
      .execute();
    expect(rows).toHaveLength(0);
  });

  it('an account that already has such a name keeps working', async () => {
    const name = `Support ${unique('legacy')}`;
    await service.db
      .insertInto('accounts')
      .values({ id: randomUUID(), name, nameKey: accountNameKey(name), createdBy: 'cli' })
      .execute();
    const created = await serviceCli(service, 'keys', 'create', '--tier', 'free', '--account', name, '--json');
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ account: name, opened: false });
  });
});

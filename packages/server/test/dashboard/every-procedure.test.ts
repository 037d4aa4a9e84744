// Every dashboard procedure, derived from the router (a new one is covered the day it lands): without a session it
// answers 401; a member of account A naming account B gets NOT_FOUND (as if B did not exist), whatever the input;
// a member who is not on the support team is refused every support procedure; a cross-site change is refused
// before anything else. The feature tests check, procedure by procedure, that nothing of B changed or leaked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProcedures } from '../../src/http/trpc-internals.ts';
import { appRouter } from '../../src/router.ts';
import type { TestService } from '../support/service.ts';
import { createMember, startDashboardService, trpc, type TestMember } from './support.ts';

/** Procedures reachable without a session (an invitation link is opened before its person has an account). */
const PUBLIC = new Set(['dashboard.invitations.get', 'dashboard.session.signup', 'dashboard.mail.available']);
/** Procedures of a signed-in person that act in no account (who am I, my sessions; accept a link; open an account). */
const NO_ACCOUNT = new Set([
  'dashboard.session.me',
  'dashboard.session.sessions',
  'dashboard.session.revokeSession',
  'dashboard.mail.status',
  'dashboard.invitations.accept',
  'dashboard.accounts.create',
]);

const dashboard = allProcedures(appRouter).filter((p) => p.name.startsWith('dashboard.'));
const support = dashboard.filter((p) => p.name.startsWith('dashboard.support.'));
const accountScoped = dashboard.filter(
  (p) => !PUBLIC.has(p.name) && !NO_ACCOUNT.has(p.name) && !p.name.startsWith('dashboard.support.'),
);

describe('every dashboard procedure', () => {
  let service: TestService;
  let a: TestMember;
  let b: TestMember;
  beforeAll(async () => {
    service = await startDashboardService();
    a = await createMember(service, 'owner');
    b = await createMember(service, 'owner');
  });
  afterAll(() => service.stop());

  const call = (name: string, type: string, opts: Parameters<typeof trpc>[2]) =>
    trpc(service, name, { ...opts, mutation: type === 'mutation', input: opts.input ?? {} });

  it('are found in the router (the lists below are not empty)', () => {
    expect(dashboard.length).toBeGreaterThan(1);
    expect(accountScoped.length).toBeGreaterThan(0);
  });

  it.each(dashboard.filter((p) => !PUBLIC.has(p.name)).map((p) => [p.name, p.type]))(
    '%s answers 401 UNAUTHENTICATED without a session',
    async (name, type) => {
      const res = await call(name, type, {});
      expect(res.status).toBe(401);
      expect(res.body.error.data.code).toBe('UNAUTHENTICATED');
    },
  );

  it.each(accountScoped.map((p) => [p.name, p.type]))(
    '%s gives a member of account A nothing of account B (NOT_FOUND)',
    async (name, type) => {
      const res = await call(name, type, { cookie: a.cookie, accountId: b.accountId });
      expect(res.status).toBe(404);
      expect(res.body.error.data.code).toBe('NOT_FOUND');
    },
  );

  it.each(support.map((p) => [p.name, p.type]))(
    '%s refuses a member who is not on the support team (403)',
    async (name, type) => {
      const res = await call(name, type, { cookie: a.cookie, input: { accountId: b.accountId, query: b.accountName } });
      expect(res.status).toBe(403);
    },
  );

  it.each(dashboard.filter((p) => p.type === 'mutation' && !PUBLIC.has(p.name)).map((p) => [p.name]))(
    '%s refuses a cross-site request carrying a valid session (403)',
    async (name) => {
      const attempts: Record<string, string>[] = [
        { 'sec-fetch-site': 'cross-site' },
        { origin: 'https://evil.example' },
      ];
      for (const headers of attempts) {
        const res = await trpc(service, name, {
          cookie: a.cookie,
          accountId: a.accountId,
          mutation: true,
          input: {},
          headers,
        });
        expect(res.status).toBe(403);
        expect(res.body.error.data.code).toBe('FORBIDDEN');
      }
    },
  );
});

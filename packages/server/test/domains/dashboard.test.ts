import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, startDashboardService, trpc, type TestMember } from '../dashboard/support.ts';
import type { TestService } from '../support/service.ts';
import { startTxtServer } from './dns-server.ts';

let service: TestService;
let dns: Awaited<ReturnType<typeof startTxtServer>>;
beforeAll(async () => {
  dns = await startTxtServer();
  service = await startDashboardService({ env: { DOMAIN_VERIFY_DNS_SERVERS: dns.server } });
}, 60_000);
afterAll(async () => {
  await service?.stop();
  await dns?.stop();
});

const call = (member: TestMember, path: string, input?: unknown, accountId = member.accountId) =>
  trpc(service, `dashboard.domains.${path}`, {
    cookie: member.cookie,
    accountId,
    mutation: path !== 'list',
    input,
  });
const fresh = () => `d${Math.random().toString(36).slice(2, 10)}.test`;

describe('domains in the dashboard', () => {
  it('an owner adds a domain, is told what to publish, and verifies it by its DNS TXT record', async () => {
    const owner = await createMember(service, 'owner');
    const domain = fresh();
    const added = await call(owner, 'add', { domain: ` ${domain.toUpperCase()}. ` });
    expect(added.status).toBe(200);
    const { token, dnsName, dnsValue, wellKnownUrl, verifiedAt } = added.body.result.data;
    expect([dnsName, dnsValue, wellKnownUrl, verifiedAt]).toEqual([
      `_attestation-service.${domain}`,
      `attestation-service-verification=${token}`,
      `https://${domain}/.well-known/attestation-service.txt`,
      null,
    ]);

    // nothing published yet: not verified, and each method says why
    const early = await call(owner, 'verify', { domain });
    expect(early.status).toBe(200);
    expect(early.body.result.data).toMatchObject({
      verified: false,
      method: null,
      checks: { dns: `_attestation-service.${domain} has no TXT record` },
    });

    dns.records.set(dnsName, [dnsValue]);
    const verified = await call(owner, 'verify', { domain });
    expect(verified.body.result.data).toMatchObject({ verified: true, method: 'dns', domain: { verifiedBy: 'dns' } });
    const listed = (await call(owner, 'list')).body.result.data.data;
    expect(listed).toEqual([expect.objectContaining({ domain, verifiedBy: 'dns', verifiedAt: expect.any(String) })]);

    const audit = await service.db
      .selectFrom('auditEntries')
      .select(['action', 'details'])
      .where('accountId', '=', owner.accountId)
      .where('action', 'like', 'domain.%')
      .orderBy('id')
      .$narrowType<{ details: { actor: { email: string }; method?: string } }>()
      .execute();
    expect(audit.map((a) => [a.action, a.details.method, a.details.actor.email])).toEqual([
      ['domain.added', undefined, owner.email],
      ['domain.verified', 'dns', owner.email],
    ]);
  }, 60_000);

  it("refuses another account's token: a TXT record made for one account verifies no other", async () => {
    const first = await createMember(service, 'owner');
    const second = await createMember(service, 'admin');
    const domain = fresh();
    const mine = (await call(first, 'add', { domain })).body.result.data;
    expect((await call(second, 'add', { domain })).status).toBe(200);
    dns.records.set(mine.dnsName, [mine.dnsValue]);
    const theirs = await call(second, 'verify', { domain });
    expect(theirs.body.result.data).toMatchObject({
      verified: false,
      checks: { dns: expect.stringMatching(/has TXT records, but none is attestation-service-verification=/) },
    });
    expect((await call(first, 'verify', { domain })).body.result.data.verified).toBe(true);
  }, 60_000);

  it('a viewer sees the domains but cannot add, verify or remove one (403 FORBIDDEN)', async () => {
    const owner = await createMember(service, 'owner');
    const viewer = await createMember(service, 'viewer', owner.accountId);
    const domain = fresh();
    await call(owner, 'add', { domain });
    expect((await call(viewer, 'list')).body.result.data.data).toHaveLength(1);
    for (const path of ['add', 'verify', 'remove']) {
      const res = await call(viewer, path, { domain });
      expect([path, res.status, res.body.error.data.code]).toEqual([path, 403, 'FORBIDDEN']);
    }
  }, 60_000);

  it("a member of another account cannot reach this account's domains (404, as if it did not exist)", async () => {
    const owner = await createMember(service, 'owner');
    const stranger = await createMember(service, 'owner');
    const domain = fresh();
    await call(owner, 'add', { domain });
    const named = await call(stranger, 'verify', { domain }, owner.accountId);
    expect([named.status, named.body.error.data.code]).toEqual([404, 'NOT_FOUND']);
    // in their own account the domain is not theirs to check
    expect((await call(stranger, 'verify', { domain })).status).toBe(404);
    expect((await call(stranger, 'remove', { domain })).status).toBe(404);
  }, 60_000);

  it('refuses what is not a domain, and a domain claimed twice; removes one', async () => {
    const owner = await createMember(service, 'owner');
    for (const domain of ['localhost', '127.0.0.1', 'a..b', '-x.test', 'exa mple.com', `${'a'.repeat(64)}.test`]) {
      const res = await call(owner, 'add', { domain });
      expect([domain, res.status, res.body.error.data.code]).toEqual([domain, 400, 'VALIDATION_FAILED']);
    }
    const domain = fresh();
    await call(owner, 'add', { domain });
    expect((await call(owner, 'add', { domain })).body.error.data.code).toBe('ALREADY_EXISTS');
    expect((await call(owner, 'remove', { domain })).status).toBe(200);
    expect((await call(owner, 'list')).body.result.data.data).toEqual([]);
  }, 60_000);
});

import { randomBytes, randomUUID } from 'node:crypto';
import { createClient } from '@attestation-service/client';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { memoryWindowStore, startTestService, type TestService } from '@attestation-service/server/testing';
import type { BadgeJson } from '../src/badge/json.ts';
import { startVerifyServer } from '../src/server.ts';

// An account's name is its own choice; the names below are what an impersonator would pick.
const chain = inject('chain');
let svc: TestService;
let app: Awaited<ReturnType<typeof startVerifyServer>>;

beforeAll(async () => {
  svc = await startTestService();
  const probe = createClient({ baseUrl: svc.url, apiKey: (await svc.createKey('free')).key });
  const own = await probe.attestations.create({ type: 'human', content: 'ours', contentType: 'text/plain' });
  app = await startVerifyServer({
    apiUrl: svc.url,
    rpcUrl: chain.rpcUrl,
    chainId: 31337,
    easAddress: chain.eas as Hex,
    attester: (await probe.attestations.get(own.uid)).attester as Hex,
    port: 0,
    host: '127.0.0.1',
    windows: memoryWindowStore(),
    cacheTtlMs: 0,
  });
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await svc?.stop();
});

/** An account whose registered attester signs one attestation; its stored name, and optionally a proved domain. */
async function claimedBy(name: string, domain?: string) {
  const created = await svc.createKey('pro');
  const client = createClient({ baseUrl: svc.url, apiKey: created.key });
  const { db } = svc;
  const account = await db
    .selectFrom('accounts')
    .select('id')
    .where('name', '=', created.account)
    .executeTakeFirstOrThrow();
  // as a name kept from before the reserved names were refused: the page must not take it at its word
  await db.updateTable('accounts').set({ name }).where('id', '=', account.id).execute();
  const now = new Date();
  if (domain)
    await db
      .insertInto('accountDomains')
      .values([
        {
          id: randomUUID(),
          accountId: account.id,
          domain,
          token: 'token',
          createdAt: now,
          verifiedAt: now,
          verifiedBy: 'dns',
        },
        { id: randomUUID(), accountId: account.id, domain: 'unproved.test', token: 'token', createdAt: now },
      ])
      .execute();
  const customer = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}` as Hex);
  await client.attesters.register(customer);
  const { uid } = await client.attestations.createSigned(customer, {
    type: 'human',
    content: `claimed ${Math.random()}`,
    contentType: 'text/plain',
  });
  const page = await (await fetch(`${app.url}/${uid}`)).text();
  const badge = (await (await fetch(`${app.url}/api/attestation/${uid}`)).json()) as BadgeJson;
  const svg = await (await fetch(`${app.url}/api/attestation/${uid}/badge.svg`)).text();
  return { uid, client, page, badge, svg, address: customer.address };
}

describe('the claimant a stranger can trust', () => {
  it('shows a name that impersonates the service only as self-declared: the attestation verified, the name not', async () => {
    const { page, badge, svg } = await claimedBy(`The attestation service ${randomUUID().slice(0, 4)}`);
    expect(page).toMatch(
      /data-claimant-verified="none"\s*><strong>“The attestation service \w+”<\/strong> \(self-declared\)/,
    );
    expect(page).not.toContain('(verified domain)');
    expect(badge).toMatchObject({ verified: true, claimant: { domain: null, verified: false } });
    // cut at 24 characters, still quoted and labelled
    expect(svg).toContain('· verified · by “The attestation service…” (self-declared)');
  }, 60_000);

  it('names the verified domain first, the name second; the record carries the domain', async () => {
    const domain = `${randomUUID().slice(0, 8)}.example.com`;
    const { uid, client, page, badge, svg, address } = await claimedBy('ACME', domain);
    expect((await client.attestations.get(uid)).claimant).toEqual({
      kind: 'account',
      address,
      accountName: 'ACME',
      domain,
    });
    expect(page).toMatch(
      new RegExp(`data-claimant-verified="domain"\\s*><strong>${domain}</strong> \\(verified domain\\)`),
    );
    expect(page).toContain('It calls itself “ACME” (self-declared).');
    expect(page).toContain(`${domain}&#39;s attester ${address}`);
    expect(badge.claimant).toEqual({
      kind: 'account',
      address,
      name: 'ACME',
      domain,
      verified: true,
      accountName: 'ACME',
    });
    expect(svg).toContain(`· verified · by ${domain} (verified domain)`);
    expect(svg).not.toContain('unproved.test');
  }, 60_000);

  it('escapes a hostile name on the page, in the badge and in its JSON', async () => {
    const hostile = `"><script>alert(1)</script><img src=x onerror=alert(2)>&amp;'`;
    const { page, badge, svg } = await claimedBy(hostile);
    expect(badge.claimant.name).toBe(hostile);
    for (const text of [page, svg]) {
      expect(text).not.toContain('<script>alert(1)');
      expect(text).not.toContain('<img src=x');
    }
    expect(page).toContain(
      '“&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&amp;amp;&#39;”',
    );
    expect(svg).toContain('by “&quot;&gt;&lt;script&gt;alert(1)&lt;/scr…” (self-declared)');
  }, 60_000);
});

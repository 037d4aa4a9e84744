import { randomBytes } from 'node:crypto';
import { createClient, type Attestation } from '@attestation-service/client';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { memoryWindowStore, startTestService, type TestService } from '@attestation-service/server/testing';
import { startVerifyServer } from '../src/server.ts';
import { badgeJson } from '../src/badge/json.ts';
import { badgeSvg } from '../src/badge/svg.ts';
import { attestationPage } from '../src/html/attestation-page.ts';
import { createEasReader, type TrustAnchors } from '../src/verdict/eas.ts';
import { createVerifier } from '../src/verdict/verify.ts';

const chain = inject('chain');
let svc: TestService;
let client: ReturnType<typeof createClient>;
let account: string;
let anchors: TrustAnchors;
const customer = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}` as Hex);

beforeAll(async () => {
  svc = await startTestService();
  const created = await svc.createKey('pro');
  account = created.account;
  client = createClient({ baseUrl: svc.url, apiKey: created.key });
  await client.attesters.register(customer);
  // the service's own attester, as `serve` hands the app its relayer address
  const own = await client.attestations.create({
    type: 'human',
    content: 'ours',
    contentType: 'text/plain',
    mode: 'offchain',
  });
  const attester = (await client.attestations.get(own.uid)).attester as Hex;
  anchors = { chainId: 31337, eas: chain.eas as Hex, attester };
}, 60_000);
afterAll(() => svc?.stop());

/** The verdict of a uid as the app reaches it: the record through the API (optionally altered), the chain itself. */
function verify(uid: string, alter: (r: Attestation) => Attestation = (r) => r) {
  const verifier = createVerifier({
    records: { get: async (u) => alter(await client.attestations.get(u)), search: async () => [] },
    eas: createEasReader(chain.rpcUrl, anchors),
    anchors,
    cacheTtlMs: 0,
  });
  return verifier.verify(uid, '203.0.113.9');
}

describe("the page and the badge name a customer attester's claim", () => {
  it.each(['onchain', 'offchain'] as const)(
    '%s: verified, claimed by the account (its name self-declared) and its address',
    async (mode) => {
      const created = await client.attestations.createSigned(customer, {
        type: 'human',
        content: `claimed by the customer ${mode} ${Math.random()}`,
        contentType: 'text/plain',
        mode,
      });
      const v = await verify(created.uid);
      expect([v.state, v.checks.filter((c) => !c.ok)]).toEqual(['verified', []]);

      const page = attestationPage(v, 'https://verify.example').replace(/&#(39|x27);/g, "'");
      expect(page).toContain('data-claimant="account"');
      expect(page).toContain(`<strong>“${account}”</strong> (self-declared)`);
      expect(page).toContain(
        `the attester ${customer.address} of an account that calls itself “${account}” (self-declared)`,
      );

      expect(badgeJson(v, 'https://verify.example')?.claimant).toEqual({
        kind: 'account',
        address: customer.address,
        name: account,
        domain: null,
        verified: false,
        accountName: account,
      });
      expect(badgeSvg(v)).toMatch(new RegExp(`verified · by “${account.slice(0, 23)}.*” \\(self-declared\\)`));
    },
    60_000,
  );

  it('is a mismatch when the record names a claimant address the chain does not show', async () => {
    const created = await client.attestations.createSigned(customer, {
      type: 'ai',
      content: `forged claimant ${Math.random()}`,
      contentType: 'text/plain',
    });
    const impostor = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}` as Hex).address;
    const v = await verify(created.uid, (r) => ({
      ...r,
      attester: impostor,
      claimant: { kind: 'account', address: impostor, accountName: 'Impostor', domain: null },
    }));
    expect(v.state).toBe('mismatch');
    expect(v.checks.find((c) => c.label === 'Attester')).toMatchObject({ ok: false });
  }, 60_000);

  it("names the service as the claimant of the service's own attestations", async () => {
    const created = await client.attestations.create({
      type: 'human',
      content: `ours ${Math.random()}`,
      contentType: 'text/plain',
    });
    const v = await verify(created.uid);
    expect(v.state).toBe('verified');
    expect(attestationPage(v, 'https://verify.example')).toContain('data-claimant="service"');
    expect(badgeJson(v, 'https://verify.example')?.claimant).toMatchObject({
      kind: 'service',
      name: null,
      verified: true,
    });
    expect(badgeSvg(v)).not.toContain(' · by ');
  }, 60_000);

  it('over HTTP: the page, the JSON badge and the SVG badge say who claims it', async () => {
    const created = await client.attestations.createSigned(customer, {
      type: 'human',
      content: `over http ${Math.random()}`,
      contentType: 'text/plain',
    });
    const app = await startVerifyServer({
      apiUrl: svc.url,
      rpcUrl: chain.rpcUrl,
      chainId: anchors.chainId,
      easAddress: anchors.eas,
      attester: anchors.attester,
      port: 0,
      host: '127.0.0.1',
      windows: memoryWindowStore(),
      cacheTtlMs: 0,
    });
    try {
      const page = await fetch(`${app.url}/${created.uid}`);
      expect(page.status).toBe(200);
      const html = (await page.text()).replace(/&#(39|x27);/g, "'");
      expect(html).toContain('data-claimant="account"');
      expect(html).toContain(`of an account that calls itself “${account}” (self-declared)`);
      const json = await fetch(`${app.url}/api/attestation/${created.uid}`);
      expect(await json.json()).toMatchObject({
        status: 'verified',
        claimant: { kind: 'account', address: customer.address, name: account, domain: null, verified: false },
      });
      const svg = await (await fetch(`${app.url}/api/attestation/${created.uid}/badge.svg`)).text();
      expect(svg).toContain(
        `aria-label="attestation: Human-made (digital creation) · verified · by “${account.slice(0, 23)}`,
      );
    } finally {
      await app.stop();
    }
  }, 60_000);
});

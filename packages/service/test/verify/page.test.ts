import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createClient } from '@attestation-service/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAttestation, launchBrowser, OUTPUT_DIR, randomIp, revoke, startStack, type Stack } from './support.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let stack: Stack;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': randomIp() } });
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function open(uid: string, shot: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${stack.verify.url}/${uid}`);
  await page.screenshot({ path: join(OUTPUT_DIR, `${shot}.png`), fullPage: true });
  return page;
}

const verdictOf = (page: Page) => page.locator('[data-verdict]').getAttribute('data-verdict');

describe('the attestation page', () => {
  it('says "Verified" for an on-chain attestation, with the chain, transaction and attester', async () => {
    const { created } = await createAttestation(stack.svc, {
      type: 'human',
      content: `on-chain page ${Math.random()}`,
      mode: 'onchain',
    });
    const page = await open(created.uid, 'onchain-verified');
    expect(await verdictOf(page)).toBe('verified');
    await expect.poll(() => page.locator('h1').textContent()).toBe('Human-made');
    const text = await page.locator('main').textContent();
    expect(text).toContain(created.txHash);
    expect(text).toContain(stack.attester);
    expect(text).toContain('Local development chain (anvil)');
    // the dev chain has no explorer: the transaction is shown, not linked
    expect(await page.locator(`a[href*="${created.txHash}"]`).count()).toBe(0);
    expect(await page.locator('.checks .fail').count()).toBe(0);
    expect(await page.locator('.checks .pass').count()).toBeGreaterThanOrEqual(10);
    await page.close();
  });

  it('says "Verified" for an off-chain attestation whose signature recovers to the service attester', async () => {
    const { created } = await createAttestation(stack.svc, {
      type: 'ai',
      content: `off-chain page ${Math.random()}`,
      mode: 'offchain',
    });
    const page = await open(created.uid, 'offchain-verified');
    expect(await verdictOf(page)).toBe('verified');
    expect(await page.locator('h1').textContent()).toBe('AI-generated');
    expect(await page.locator('[data-check="Signature"]').getAttribute('class')).toBe('pass');
    expect(await page.locator('main').textContent()).toContain('Off-chain');
    await page.close();
  });

  it('says "Revoked" for on-chain and off-chain attestations revoked on the chain', async () => {
    const onchain = await createAttestation(stack.svc, {
      type: 'human',
      content: `revoked on ${Math.random()}`,
      mode: 'onchain',
    });
    const offchain = await createAttestation(
      stack.svc,
      { type: 'human', content: `revoked off ${Math.random()}`, mode: 'offchain' },
      onchain.key,
    );
    await Promise.all([
      revoke(stack.svc, onchain.created.uid, onchain.key),
      revoke(stack.svc, offchain.created.uid, onchain.key),
    ]);
    for (const [uid, shot] of [
      [onchain.created.uid, 'onchain-revoked'],
      [offchain.created.uid, 'offchain-revoked'],
    ] as const) {
      const page = await open(uid, shot);
      expect(await verdictOf(page)).toBe('revoked');
      expect(await page.locator('[data-check="Revocation"]').getAttribute('class')).toBe('pass');
      await page.close();
    }
  }, 60_000);

  it('says "Not found" with a 404 for an unknown uid and for a malformed one', async () => {
    const page = await context.newPage();
    const res = await page.goto(`${stack.verify.url}/0x${'ab'.repeat(32)}`);
    expect(res?.status()).toBe(404);
    await page.screenshot({ path: join(OUTPUT_DIR, 'not-found.png'), fullPage: true });
    expect(await verdictOf(page)).toBe('not-found');
    const malformed = await page.goto(`${stack.verify.url}/not-a-uid%3Cscript%3E`);
    expect(malformed?.status()).toBe(404);
    expect(await verdictOf(page)).toBe('not-found');
    await page.close();
  });

  it('says "Mismatch" when our database is changed behind the chain\'s back', async () => {
    const onchain = await createAttestation(stack.svc, {
      type: 'human',
      content: `tampered on ${Math.random()}`,
      mode: 'onchain',
    });
    const offchain = await createAttestation(
      stack.svc,
      { type: 'human', content: `tampered off ${Math.random()}`, mode: 'offchain' },
      onchain.key,
    );
    const forged = `0x${'11'.repeat(32)}`;
    const { db } = stack.svc;
    await db.updateTable('attestations').set({ contentHash: forged }).where('uid', '=', onchain.created.uid).execute();
    await db.updateTable('attestations').set({ type: 'ai' }).where('uid', '=', offchain.created.uid).execute();
    const page = await open(onchain.created.uid, 'onchain-mismatch');
    expect(await verdictOf(page)).toBe('mismatch');
    expect(await page.locator('[data-check="Content hash"]').getAttribute('class')).toBe('fail');
    await page.goto(`${stack.verify.url}/${offchain.created.uid}`);
    expect(await verdictOf(page)).toBe('mismatch');
    expect(await page.locator('[data-check="Origin"]').getAttribute('class')).toBe('fail');
    await page.close();
  });

  it('renders the record and the verdict without JavaScript', async () => {
    const { created } = await createAttestation(stack.svc, {
      type: 'human',
      content: `no js ${Math.random()}`,
      mode: 'offchain',
    });
    const noJs = await browser.newContext({
      javaScriptEnabled: false,
      extraHTTPHeaders: { 'x-forwarded-for': randomIp() },
    });
    const page = await noJs.newPage();
    await page.goto(`${stack.verify.url}/${created.uid}`);
    expect(await verdictOf(page)).toBe('verified');
    expect(await page.locator('[data-field="content-hash"]').textContent()).toMatch(/^0x[0-9a-f]{64}$/);
    await noJs.close();
  });

  it('serves badges that parse as SVG and render as images, for every verdict', async () => {
    const { created } = await createAttestation(stack.svc, {
      type: 'ai',
      content: `svg ${Math.random()}`,
      mode: 'offchain',
    });
    const page = await context.newPage();
    await page.goto(`${stack.verify.url}/${created.uid}`);
    const badge = page.locator('img[src$="badge.svg"]');
    await expect
      .poll(() => badge.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(100);
    // the "not found" badge is answered with status 404, and browsers still draw it
    const missingWidth = await page.evaluate(
      async (src) => {
        const img = new (globalThis as any).Image();
        img.src = src;
        await img.decode().catch(() => undefined);
        return img.naturalWidth as number;
      },
      `/api/attestation/0x${'ab'.repeat(32)}/badge.svg`,
    );
    expect(missingWidth).toBeGreaterThan(100);
    for (const uid of [created.uid, `0x${'ab'.repeat(32)}`, 'malformed']) {
      const svg = await (
        await fetch(`${stack.verify.url}/api/attestation/${uid}/badge.svg`, {
          headers: { 'x-forwarded-for': randomIp() },
        })
      ).text();
      const parsed = await page.evaluate((text) => {
        // the browser's own XML parser (this test file is typed without the DOM library)
        const doc = new (globalThis as any).DOMParser().parseFromString(text, 'image/svg+xml');
        const root = doc.documentElement;
        return {
          error: doc.getElementsByTagName('parsererror').length,
          name: root.localName,
          ns: root.namespaceURI,
          label: root.getAttribute('aria-label'),
          title: doc.querySelector('title')?.textContent,
        };
      }, svg);
      expect(parsed).toMatchObject({ error: 0, name: 'svg', ns: 'http://www.w3.org/2000/svg' });
      expect(parsed.label).toBe(parsed.title);
      expect(parsed.label).toBe(
        uid === created.uid ? 'attestation: AI-generated (trained model) · verified' : 'attestation: not found',
      );
    }
    await page.close();
  });

  it("names the account whose registered address signed a customer's attestation", async () => {
    const { key, account } = await stack.svc.createKey('pro');
    const client = createClient({ baseUrl: stack.svc.url, apiKey: key });
    const customer = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}`);
    await client.attesters.register(customer);
    const created = await client.attestations.createSigned(customer, {
      type: 'human',
      content: `claimed in the browser ${Math.random()}`,
      contentType: 'text/plain',
      mode: 'onchain',
    });
    const page = await open(created.uid, 'customer-claimant');
    expect(await verdictOf(page)).toBe('verified');
    const claimant = page.locator('[data-claimant]');
    expect(await claimant.getAttribute('data-claimant')).toBe('account');
    // the account's name is its own choice: quoted and labelled, never presented as checked
    expect(await claimant.textContent()).toBe(`“${account}” (self-declared)`);
    const text = await page.locator('main').textContent();
    expect(text).toContain(customer.address);
    expect(await page.locator('.checks .fail').count()).toBe(0);
    await page.close();
  }, 60_000);

  it('has no serious or critical axe-core violations, on the record page and on /check', async () => {
    const { created } = await createAttestation(stack.svc, {
      type: 'ai',
      content: `axe ${Math.random()}`,
      mode: 'offchain',
    });
    const page = await context.newPage();
    for (const path of [`/${created.uid}`, '/check', `/check?hash=${'ab'.repeat(32)}`, `/0x${'cd'.repeat(32)}`]) {
      await page.goto(`${stack.verify.url}${path}`);
      // injected through the devtools protocol: the page's CSP rightly refuses an inline <script>
      await page.evaluate(AXE_SOURCE);
      const results = (await page.evaluate(() =>
        (globalThis as unknown as { axe: { run(): Promise<unknown> } }).axe.run(),
      )) as { violations: { id: string; impact: string; nodes: unknown[] }[] };
      const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(bad.map((v) => `${path}: ${v.id} (${v.impact})`)).toEqual([]);
    }
    await page.close();
  });
});

import { startTxtServer } from '@attestation-service/server/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  createMember,
  launchBrowser,
  newVisitor,
  openSection,
  signIn,
  startDashboardStack,
  UI_WAIT,
  type DashboardStack,
} from './support.ts';

let dns: Awaited<ReturnType<typeof startTxtServer>>;
let stack: DashboardStack;
let browser: Browser;

beforeAll(async () => {
  dns = await startTxtServer();
  [stack, browser] = await Promise.all([
    startDashboardStack({ env: { DOMAIN_VERIFY_DNS_SERVERS: dns.server } }),
    launchBrowser(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await dns?.stop();
});

describe('domains in the dashboard', () => {
  it('an admin adds a domain, is told what to publish, sees why a check fails, then verifies it by DNS', async () => {
    const admin = await createMember(stack, 'admin');
    const domain = `d${Math.random().toString(36).slice(2, 10)}.test`;
    const { context, page } = await newVisitor(browser, stack);
    try {
      await signIn(page, admin);
      await openSection(page, 'Domains');
      await page.getByText('No domain yet: add one with the form above.').waitFor(UI_WAIT);
      // what is not a domain is caught in the page, by the server's own rule
      await page.getByLabel('Domain', { exact: true }).fill('localhost');
      await page.getByRole('button', { name: 'Add domain' }).click();
      await expect.poll(() => page.getByRole('alert').textContent(), UI_WAIT).toContain('must be a domain name');

      await page.getByLabel('Domain', { exact: true }).fill(domain);
      await page.getByRole('button', { name: 'Add domain' }).click();
      const card = page.getByRole('article', { name: domain });
      await card.getByText(`_attestation-service.${domain}`).waitFor(UI_WAIT);
      const value = (await card.locator('code', { hasText: 'attestation-service-verification=' }).textContent())!;

      await card.getByRole('button', { name: 'Verify' }).click();
      await expect.poll(() => card.getByRole('alert').textContent(), UI_WAIT).toBe('Neither proof holds yet.');
      await card.getByText(`DNS: _attestation-service.${domain} has no TXT record`).waitFor(UI_WAIT);
      expect(await axeViolations(page)).toEqual([]);

      dns.records.set(`_attestation-service.${domain}`, [value]);
      await card.getByRole('button', { name: 'Verify' }).click();
      await card.getByText('Proved by its DNS TXT record.').waitFor(UI_WAIT);
      await card.getByText(/^Verified by its DNS TXT record on /).waitFor(UI_WAIT);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('a viewer sees the domains but no form and no buttons', async () => {
    const admin = await createMember(stack, 'admin');
    const viewer = await createMember(stack, 'viewer', admin.accountId);
    const domain = `d${Math.random().toString(36).slice(2, 10)}.test`;
    await stack.service.services.domains.add(
      { accountId: admin.accountId, member: { userId: 'seed', email: 'seed@example.com', role: 'admin' } },
      domain,
      { requestId: 'seed', ip: '127.0.0.1' },
    );
    const { context, page } = await newVisitor(browser, stack);
    try {
      await signIn(page, viewer);
      await openSection(page, 'Domains');
      const card = page.getByRole('article', { name: domain });
      await card.waitFor(UI_WAIT);
      expect(await page.getByRole('button', { name: 'Add domain' }).count()).toBe(0);
      expect(await card.getByRole('button', { name: /^(Verify|Remove)/ }).count()).toBe(0);
    } finally {
      await context.close();
    }
  }, 60_000);
});

import type { Browser, Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
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

let stack: DashboardStack;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startDashboardStack(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** Asks for the address's challenge in the page and returns the message it shows. */
async function challengeFor(page: Page, address: string): Promise<string> {
  await page.getByLabel('Address', { exact: true }).fill(address);
  await page.getByRole('button', { name: 'Get the message to sign' }).click();
  const shown = page.getByLabel('Message to sign');
  await shown.waitFor(UI_WAIT);
  return (await shown.textContent()) ?? '';
}

describe('attester addresses in the dashboard', () => {
  it('an admin adds an address by signing the message the page shows, sees it listed, and removes it', async () => {
    const admin = await createMember(stack, 'admin');
    const attester = privateKeyToAccount(generatePrivateKey());
    const { context, page } = await newVisitor(browser, stack);
    try {
      await signIn(page, admin);
      await openSection(page, 'Attester addresses');
      await page.getByText('No address yet: add one with the form above.').waitFor(UI_WAIT);

      const spent = await challengeFor(page, attester.address.toLowerCase());
      expect(spent).toContain(attester.address);
      // a signature by another key is refused with the service's words and uses the message up: the page goes back
      // to its first step with the address kept, and nothing is registered
      const other = privateKeyToAccount(generatePrivateKey());
      await page.getByLabel('Signature').fill(await other.signMessage({ message: spent }));
      await page.getByRole('button', { name: 'Register address' }).click();
      await expect.poll(() => page.getByRole('alert').textContent(), UI_WAIT).toContain(attester.address);
      await page.getByText('Each message can be signed once').waitFor(UI_WAIT);
      expect(await page.getByRole('table', { name: 'Attester addresses' }).count()).toBe(0);
      await page.getByRole('button', { name: 'Get the message to sign' }).click();
      const message = (await page.getByLabel('Message to sign').textContent()) ?? '';
      expect(message).not.toBe(spent);

      // a malformed signature is caught in the page, before any call (the message stays usable)
      await page.getByLabel('Signature').fill('0x1234');
      await page.getByRole('button', { name: 'Register address' }).click();
      await expect.poll(() => page.getByRole('alert').textContent(), UI_WAIT).toContain('65-byte signature');

      await page.getByLabel('Signature').fill(await attester.signMessage({ message }));
      await page.getByRole('button', { name: 'Register address' }).click();
      await page.getByText(`Address ${attester.address} registered.`).waitFor(UI_WAIT);
      const row = page.getByRole('row').filter({ hasText: attester.address });
      await row.waitFor(UI_WAIT);
      expect(await axeViolations(page)).toEqual([]);
      const [listed] = await stack.db
        .selectFrom('attesters')
        .select('address')
        .where('accountId', '=', admin.accountId)
        .where('removedAt', 'is', null)
        .execute();
      expect(listed?.address).toBe(attester.address.toLowerCase());

      await row.getByRole('button', { name: /^Remove/ }).click();
      await page.getByRole('button', { name: 'Remove address' }).click();
      await page.getByText(`Address ${attester.address} removed.`).waitFor(UI_WAIT);
      await page.getByText('No address yet: add one with the form above.').waitFor(UI_WAIT);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('a malformed address is caught in the page; a viewer sees the list but no form and no remove button', async () => {
    const admin = await createMember(stack, 'admin');
    const viewer = await createMember(stack, 'viewer', admin.accountId);
    const attester = privateKeyToAccount(generatePrivateKey());
    const { context, page } = await newVisitor(browser, stack);
    try {
      await signIn(page, admin);
      await openSection(page, 'Attester addresses');
      await page.getByLabel('Address', { exact: true }).fill('0xnot-an-address');
      await page.getByRole('button', { name: 'Get the message to sign' }).click();
      await expect.poll(() => page.getByRole('alert').textContent(), UI_WAIT).toContain('must be an address');
      const message = await challengeFor(page, attester.address);
      await page.getByLabel('Signature').fill(await attester.signMessage({ message }));
      await page.getByRole('button', { name: 'Register address' }).click();
      await page.getByRole('row').filter({ hasText: attester.address }).waitFor(UI_WAIT);
    } finally {
      await context.close();
    }

    const seen = await newVisitor(browser, stack);
    try {
      await signIn(seen.page, viewer);
      await openSection(seen.page, 'Attester addresses');
      const row = seen.page.getByRole('row').filter({ hasText: attester.address });
      await row.waitFor(UI_WAIT);
      expect(await seen.page.getByRole('button', { name: 'Get the message to sign' }).count()).toBe(0);
      expect(await row.getByRole('button').count()).toBe(0);
    } finally {
      await seen.context.close();
    }
  }, 60_000);
});

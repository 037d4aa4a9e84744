import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
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

describe('the dashboard at both loopback names', () => {
  // the service prints http://127.0.0.1:PORT, links say http://localhost:PORT: a person signs in at either
  for (const host of ['127.0.0.1', 'localhost']) {
    it(`signs in and works at http://${host}:PORT`, async () => {
      const member = await createMember(stack, 'owner');
      const base = stack.base.replace('localhost', host);
      const { context, page } = await newVisitor(browser, { base });
      try {
        await signIn(page, member);
        expect(new URL(page.url()).host).toBe(new URL(base).host);
        // a change after sign-in passes the cross-site check: the key made here is listed
        await openSection(page, 'API keys');
        await page.getByLabel('Name').fill(`at-${host}`);
        await page.getByRole('button', { name: 'Create key' }).click();
        expect(await page.locator('.secret-value code').textContent()).toMatch(/^svc_free_/);
        await page.getByRole('button', { name: 'I have stored it' }).click();
        await expect.poll(() => page.getByRole('row', { name: new RegExp(`at-${host}`) }).count(), UI_WAIT).toBe(1);
      } finally {
        await context.close();
      }
    });
  }
});

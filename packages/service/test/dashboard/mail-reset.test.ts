import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkIn, startInbox, type Inbox } from '@attestation-service/server/testing';
import {
  axeViolations,
  createMember,
  launchBrowser,
  newVisitor,
  settled,
  signIn,
  startDashboardStack,
  UI_WAIT,
  type DashboardStack,
} from './support.ts';

let inbox: Inbox;
let stack: DashboardStack;
let browser: Browser;

beforeAll(async () => {
  inbox = await startInbox();
  [stack, browser] = await Promise.all([
    startDashboardStack({ worker: true, env: { SMTP_URL: inbox.smtpUrl } }),
    launchBrowser(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await inbox?.stop();
});

describe('a forgotten password, in a browser', () => {
  it(
    'is reset from the sign-in page through the mailed link, and the new password signs in',
    { timeout: 120_000 },
    async () => {
      const member = await createMember(stack, 'owner');
      const { context, page } = await newVisitor(browser, stack);
      try {
        await page.goto('/dashboard/sign-in');
        await page.getByRole('link', { name: 'Forgot your password?' }).click();
        await expect.poll(() => page.locator('h1').textContent(), UI_WAIT).toBe('Forgot your password?');
        expect(await axeViolations(page)).toEqual([]);
        await page.getByLabel('Email').fill(member.email);
        await page.getByRole('button', { name: 'Mail me a link' }).click();
        await page.getByText(`If ${member.email} has a sign-in here`).waitFor();

        const mail = await inbox.waitFor((m) => m.to === member.email && /reset/i.test(m.subject));
        await page.goto(linkIn(mail.text, `${stack.base}/dashboard/reset-password?token=`));
        await expect.poll(() => page.locator('h1').textContent(), UI_WAIT).toBe('Choose a new password');
        expect(await axeViolations(page)).toEqual([]);
        const fresh = `${member.password}-renewed`;
        await page.getByRole('textbox', { name: /^New password/ }).fill(fresh);
        await page.getByLabel('Repeat the new password').fill(fresh);
        await page.getByRole('button', { name: 'Set the new password' }).click();
        await expect.poll(() => page.locator('h1').textContent(), UI_WAIT).toBe('Password changed');

        await signIn(page, { email: member.email, password: fresh });
        await settled(page);
        expect(new URL(page.url()).pathname).toBe('/dashboard/');
      } finally {
        await context.close();
      }
    },
  );

  it('tells an unknown address the same as a known one, and mails nothing', async () => {
    const stranger = `stranger-${Date.now()}@example.com`;
    const { context, page } = await newVisitor(browser, stack);
    try {
      await page.goto('/dashboard/reset-password');
      await page.getByLabel('Email').fill(stranger);
      await page.getByRole('button', { name: 'Mail me a link' }).click();
      await page
        .getByText(`If ${stranger} has a sign-in here, a link to choose a new password is on its way.`)
        .waitFor();
      await new Promise((r) => setTimeout(r, 2_000)); // on purpose: that no mail comes only time can show
      expect((await inbox.all()).filter((m) => m.to === stranger)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutProblems } from './phone-layout.ts';
import {
  axeViolations,
  call,
  createMember,
  launchBrowser,
  newVisitor,
  openSection,
  seedInvitation,
  settled,
  SHOTS_DIR,
  signIn,
  startDashboardStack,
  startReceiver,
  UI_WAIT,
  type DashboardStack,
  type Member,
} from './support.ts';

let stack: DashboardStack;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  [stack, browser, receiver] = await Promise.all([
    startDashboardStack({ worker: true, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } }),
    launchBrowser(),
    startReceiver(() => ({ status: 200, body: 'ok' })),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await stack?.stop();
});

const PHONE = { width: 390, height: 844 };
/** What changes with the theme: the colours (the structure axe checks is the same in both). */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/** A dashboard call from the signed-in page itself (same origin, its cookie). */
async function dashboardCall(page: Page, path: string, input: unknown): Promise<void> {
  const body: { result?: unknown } = await page.evaluate(
    async ([p, i]) => {
      const res = await fetch(`/trpc/${p}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(i),
      });
      return (await res.json()) as { result?: unknown };
    },
    [path, input] as const,
  );
  if (!body.result) throw new Error(`${path}: ${JSON.stringify(body)}`);
}

/** Keys (one revoked), a subscription with deliveries, attestations, members and an invitation. */
async function populate(page: Page, owner: Member): Promise<void> {
  await createMember(stack, 'viewer', owner.accountId);
  const { key } = await stack.service.services.keys.create({ tier: 'free', account: owner.accountName, name: 'ci' });
  await dashboardCall(page, 'dashboard.keys.create', { name: 'newsroom publishing', tier: 'free' });
  await dashboardCall(page, 'dashboard.webhooks.create', { url: receiver.url, events: ['attestation.created'] });
  await dashboardCall(page, 'dashboard.members.invite', {
    email: 'a.long.address.of.an.editor@example.com',
    role: 'developer',
  });
  for (const type of ['human', 'ai', 'human'] as const) {
    const res = await call(stack.base, 'POST', '/v1/attestations', {
      key,
      body: { type, content: `phone ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
}

interface Shown {
  name: string;
  reach: string | ((page: Page) => Promise<unknown>);
}

/**
 * Reaches a page at phone width, pictures it in both themes (and at 1280 px for comparison), and returns what a
 * phone's reader would stumble over and axe's serious findings.
 */
async function check(page: Page, shown: Shown): Promise<string[]> {
  if (typeof shown.reach === 'string') await page.goto(shown.reach);
  else await shown.reach(page);
  await settled(page);
  const found = (await layoutProblems(page)).map((p) => `${shown.name}: ${p}`);
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const rules = colorScheme === 'light' ? undefined : COLOUR_RULES;
    found.push(...(await axeViolations(page, rules)).map((v) => `${shown.name} (${colorScheme}): ${v}`));
    await page.screenshot({ path: join(SHOTS_DIR, `phone-${shown.name}-${colorScheme}-390.png`), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: join(SHOTS_DIR, `phone-${shown.name}-${colorScheme}-1280.png`), fullPage: true });
    await page.setViewportSize(PHONE);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

const section = (name: string) => (page: Page) => openSection(page, name);

describe('the dashboard at 390 px', () => {
  it('keeps every action, link and address in view on every page, and axe finds nothing serious', async () => {
    const owner = await createMember(stack, 'owner');
    await stack.db.updateTable('users').set({ support: true }).where('email', '=', owner.email).execute();
    const invitation = await seedInvitation(stack.db, {
      accountId: owner.accountId,
      email: 'new.colleague@example.com',
      role: 'developer',
    });
    const { context, page } = await newVisitor(browser, stack);
    await page.setViewportSize(PHONE);
    const problems: string[] = [];
    for (const shown of [
      { name: 'sign-in', reach: '/dashboard/sign-in' },
      { name: 'sign-up', reach: '/dashboard/sign-up' },
      { name: 'invitation', reach: `/dashboard/invite/${invitation}` },
    ])
      problems.push(...(await check(page, shown)));

    await signIn(page, owner);
    // a new account's overview says where its first key is made
    const firstKey = page.getByRole('link', { name: 'Create your first key' });
    await expect.poll(() => firstKey.count(), UI_WAIT).toBe(1);
    await populate(page, owner);

    const signedIn: Shown[] = [
      {
        name: 'overview',
        reach: async (p) => {
          await p.goto('/dashboard/');
          await p.locator('.uplot').waitFor();
        },
      },
      { name: 'keys', reach: section('API keys') },
      {
        name: 'keys-revoke-dialog',
        reach: (p) =>
          p
            .getByRole('button', { name: /^Revoke/ })
            .first()
            .click(),
      },
      { name: 'webhooks', reach: (p) => p.keyboard.press('Escape').then(() => openSection(p, 'Webhooks')) },
      {
        name: 'deliveries',
        reach: (p) =>
          p
            .getByRole('link', { name: /^Deliveries/ })
            .first()
            .click(),
      },
      { name: 'attestations', reach: section('Attestations') },
      { name: 'attesters', reach: section('Attester addresses') },
      { name: 'audit', reach: section('Audit log') },
      { name: 'members', reach: section('Members') },
      { name: 'account', reach: section('My account') },
      {
        name: 'support',
        reach: async (p) => {
          await openSection(p, 'Support');
          await p.getByLabel('Find an account').fill(owner.accountName);
          await p.getByRole('button', { name: 'Find', exact: true }).click();
          await p.getByRole('button', { name: owner.accountName }).click();
        },
      },
      { name: 'not-found', reach: '/dashboard/no-such-page' },
    ];
    for (const shown of signedIn) {
      problems.push(...(await check(page, shown)));
      if (shown.name === 'webhooks') {
        // this service takes loopback receivers (WEBHOOK_ALLOW_PRIVATE_URLS), and the form says so
        expect(await page.locator('form .hint').first().textContent()).toContain('accepts private and loopback');
      }
      if (shown.name === 'account') {
        // the session's browser as a person reads it; the raw user-agent string in its title
        const device = page.getByRole('region', { name: 'Your signed-in sessions' }).locator('tbody th span[title]');
        expect(await device.first().textContent()).toBe('Chrome on Linux');
        expect(await device.first().getAttribute('title')).toMatch(/Chrome\//);
      }
      if (shown.name === 'audit') {
        // no range chosen: the link downloads the whole log, not the API's default 30 days
        const link = page.getByRole('link', { name: 'CSV' });
        expect(await page.locator('.downloads').textContent()).toContain('the whole log');
        expect(new URL((await link.getAttribute('href'))!, stack.base).searchParams.has('from')).toBe(false);
      }
    }
    await context.close();
    expect(problems).toEqual([]);
  }, 180_000);
});

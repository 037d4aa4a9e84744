import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

interface Shown {
  name: string;
  /** How a person gets there: an address typed in, or what they click from the page before. */
  reach: string | ((page: Page) => Promise<void>);
}

/** A link of the dashboard's navigation, followed as a person does (no reload: the app routes in the page). */
const section = (name: string) => (page: Page) => openSection(page, name);

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

/** Registers a fresh address as the account's attester: a challenge, its message signed (EIP-191), handed back. */
async function registerAttester(key: string): Promise<void> {
  const attester = privateKeyToAccount(generatePrivateKey());
  const challenge = await call(stack.base, 'POST', '/v1/attesters/challenges', {
    key,
    body: { address: attester.address },
  });
  expect(challenge.status, JSON.stringify(challenge.body)).toBe(201);
  const signature = await attester.signMessage({ message: challenge.body.message });
  const registered = await call(stack.base, 'POST', '/v1/attesters', {
    key,
    body: { challengeId: challenge.body.id, signature },
  });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
}

/** An account with something on every page: keys, attestations, a webhook with a delivery, members, an attester. */
async function populate(page: Page, owner: Member): Promise<void> {
  await createMember(stack, 'viewer', owner.accountId);
  const { key } = await stack.service.services.keys.create({ tier: 'free', account: owner.accountName, name: 'ci' });
  await dashboardCall(page, 'dashboard.keys.create', { name: 'newsroom publishing', tier: 'free' });
  await dashboardCall(page, 'dashboard.webhooks.create', {
    url: receiver.url,
    events: ['attestation.created'],
  });
  await dashboardCall(page, 'dashboard.members.invite', { email: 'editor@example.com', role: 'developer' });
  await registerAttester(key);
  for (const type of ['human', 'ai', 'human'] as const) {
    const res = await call(stack.base, 'POST', '/v1/attestations', {
      key,
      body: { type, content: `page ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
}

const THEMES = ['light', 'dark'] as const;
const WIDTHS = [1280, 390] as const;
/** What changes with the theme: the colours (the structure axe checks is the same in both). */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/** Reaches a page and pictures it in both themes at both widths; returns axe's findings in each theme. */
async function show(page: Page, shown: Shown): Promise<string[]> {
  if (typeof shown.reach === 'string') await page.goto(shown.reach);
  else await shown.reach(page);
  await settled(page);
  const found: string[] = [];
  for (const colorScheme of THEMES) {
    await page.emulateMedia({ colorScheme });
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      await page.screenshot({ path: join(SHOTS_DIR, `${shown.name}-${colorScheme}-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    const rules = colorScheme === 'light' ? undefined : COLOUR_RULES;
    found.push(...(await axeViolations(page, rules)).map((v) => `${shown.name} (${colorScheme}): ${v}`));
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

describe('every page', () => {
  it('is pictured light and dark at 1280 and 390 px, and axe finds nothing serious or critical', async () => {
    const owner = await createMember(stack, 'owner');
    // the owner is also on the operator's support team, so the support page has something to show
    await stack.db.updateTable('users').set({ support: true }).where('email', '=', owner.email).execute();
    const invitation = await seedInvitation(stack.db, {
      accountId: owner.accountId,
      email: 'new.colleague@example.com',
      role: 'developer',
    });
    const { context, page } = await newVisitor(browser, stack);
    const violations: string[] = [];
    const signedOut: Shown[] = [
      { name: 'sign-in', reach: '/dashboard/sign-in' },
      { name: 'sign-up', reach: '/dashboard/sign-up' },
      { name: 'invitation', reach: `/dashboard/invite/${invitation}` },
    ];
    for (const shown of signedOut) violations.push(...(await show(page, shown)));

    await signIn(page, owner);
    await populate(page, owner);
    const signedIn: Shown[] = [
      { name: 'overview', reach: '/dashboard/' },
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
    for (const shown of signedIn) violations.push(...(await show(page, shown)));
    await context.close();
    expect(violations).toEqual([]);
  }, 90_000);
});

import { runCli, TEST_SERVICE_SECRET } from '@attestation-service/server/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  launchBrowser,
  newPerson,
  newVisitor,
  openSection,
  settled,
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

/** The operator's `keys create` against the stack's database, as they run it on its machine. */
async function cliKey(account: string): Promise<{ prefix: string }> {
  const env = {
    ...process.env,
    DATABASE_URL: stack.service.infrastructure.config.databaseUrl!,
    PUBLIC_BASE_URL: stack.base,
    SERVICE_SECRET: TEST_SERVICE_SECRET,
    LOG_LEVEL: 'warn',
  };
  const created = await runCli(env, 'keys', 'create', '--tier', 'pro', '--account', account, '--json');
  expect(created.code, created.stderr).toBe(0);
  return JSON.parse(created.stdout) as { prefix: string };
}

describe('the setup link and an account the CLI opened', () => {
  it('takes the account over with its CLI-made key; a key made in the dashboard shows on the Overview at once', async () => {
    const account = `demo-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const { prefix } = await cliKey(account);
    const owner = newPerson('Adopter');
    const { context, page } = await newVisitor(browser, stack);

    await page.goto(stack.setupUrl);
    await expect.poll(() => page.locator('main h1').textContent(), UI_WAIT).toBe('Set up your account');
    expect(await page.locator('main').textContent()).toContain('or of one opened with the command line');
    await page.getByLabel('Your name').fill(owner.name);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Create my sign-in' }).click();
    await page.getByRole('radio', { name: new RegExp(`^${account} `) }).check();
    expect(await page.getByLabel('Account name').count()).toBe(0);
    await page.getByRole('button', { name: 'Become its owner' }).click();
    await page.waitForURL((url) => url.pathname === '/dashboard/');
    await settled(page);
    await expect.poll(() => page.locator('header').textContent(), UI_WAIT).toContain(account);
    // the Overview, loaded once here, lists the CLI's key
    await expect.poll(() => page.locator('main').textContent(), UI_WAIT).toContain(prefix);

    await openSection(page, 'API keys');
    expect(await page.getByRole('row', { name: new RegExp(prefix) }).count()).toBe(1);
    await page.getByLabel('Name').fill('made-here');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('button', { name: 'I have stored it' }).click();
    // well inside the queries' 15 s freshness: the Overview must not show its copy from before the key
    await openSection(page, 'Overview');
    await expect.poll(() => page.locator('main').textContent(), { timeout: 3_000 }).toContain('made-here');

    await page.goto(stack.setupUrl);
    await expect.poll(() => page.locator('main').textContent(), UI_WAIT).toContain('no longer valid');
    await context.close();
  }, 90_000);
});

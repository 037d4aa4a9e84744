import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { randomIp } from '@attestation-service/server/testing';

/** How long a test waits for what a page should come to show (vitest's expect.poll gives up after 1 s otherwise). */
export const UI_WAIT = { timeout: 10_000 };

/** A browser context of its own (cookies, storage) and its own client address (`ip`); its first page. */
export async function newVisitor(
  browser: Browser,
  stack: { base: string },
): Promise<{ context: BrowserContext; page: Page; ip: string }> {
  const ip = randomIp();
  const context = await browser.newContext({
    baseURL: stack.base,
    extraHTTPHeaders: { 'x-forwarded-for': ip },
    colorScheme: 'light',
    viewport: { width: 1280, height: 800 },
  });
  context.setDefaultTimeout(UI_WAIT.timeout);
  return { context, page: await context.newPage(), ip };
}

/** Signs in through the sign-in page with email and password; resolves on the overview. */
export async function signIn(page: Page, person: { email: string; password: string }): Promise<void> {
  await page.goto('/dashboard/sign-in');
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/dashboard/');
  await settled(page);
}

/** Follows a link of the dashboard's navigation and waits for its page. */
export async function openSection(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click();
  await settled(page);
}

/** Waits until the page shows its heading and nothing is loading any more. */
export async function settled(page: Page): Promise<void> {
  await page.locator('main h1').first().waitFor();
  await page.waitForFunction(() => {
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document;
    return doc.querySelectorAll('[role="status"]').length === 0;
  });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on the page as it is, one line each (`id (impact): targets`); `rules`
 * runs only those (a page's colours change with the theme, its structure does not).
 */
export async function axeViolations(page: Page, rules?: string[]): Promise<string[]> {
  // injected through the devtools protocol: the page's CSP rightly refuses an inline <script>
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const results = (await page.evaluate(
    (only) =>
      (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<unknown> } }).axe.run(
        (globalThis as unknown as { document: unknown }).document,
        only ? { runOnly: { type: 'rule', values: only } } : {},
      ),
    rules,
  )) as { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] };
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

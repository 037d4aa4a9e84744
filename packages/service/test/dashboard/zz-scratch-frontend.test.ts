// SCRATCH (frontend helper): not committed
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { call } from './support.ts';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createMember, launchBrowser, newVisitor, startDashboardStack, type DashboardStack } from './support.ts';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(
  require.resolve('axe-core/axe.min.js', { paths: ['/work/main/node_modules/.pnpm/axe-core@4.14.1/node_modules'] }),
  'utf8',
);
const OUT = '/tmp/dash/';
let stack: DashboardStack;
let browser: Browser;
let receiver: Server;
let hits = 0;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    hits++;
    res.statusCode = hits % 2 ? 500 : 200;
    res.end(hits % 2 ? 'nope, try later' : 'ok thanks');
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  stack = await startDashboardStack({
    worker: true,
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_DELAYS: '1s,1s,1s,1s' },
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  receiver?.close();
});

async function axe(page: Page, label: string) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    // @ts-expect-error axe global
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n: any) => n.target.join(' ') + ' :: ' + n.failureSummary).slice(0, 3),
    }));
  });
  const bad = result.filter((v: any) => v.impact === 'serious' || v.impact === 'critical');
  console.log(`AXE ${label}:`, JSON.stringify(result, null, 1));
  return bad;
}

test('walk', async () => {
  const errors: string[] = [];
  const { context, page } = await newVisitor(browser, stack);
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(stack.setupUrl);
  await page.getByRole('heading', { name: 'Set up your account' }).waitFor();
  await page.screenshot({ path: OUT + 'setup.png', fullPage: true });
  const bads: unknown[] = [];
  bads.push(...(await axe(page, 'setup')));
  await page.getByLabel('Your name').fill('Olive Owner');
  await page.getByLabel('Email').fill('olive@example.com');
  await page.getByLabel('Password').fill('correct-horse-battery');
  await page.getByRole('button', { name: 'Create my sign-in' }).click();
  await page.getByLabel('Account name').fill('Acme');
  await page.getByRole('button', { name: 'Accept the invitation' }).click();
  await page.getByRole('heading', { name: /Overview/ }).waitFor();
  // a key
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Name').fill('ci');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByText('it will not be shown again').waitFor();
  await page.screenshot({ path: OUT + 'key-created.png', fullPage: true });
  bads.push(...(await axe(page, 'key-created')));
  const fullKey = (await page.locator('.secret-value code').textContent())!;
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await page
    .getByRole('button', { name: /Revoke/ })
    .first()
    .click();
  await page.getByRole('dialog').waitFor();
  await page.screenshot({ path: OUT + 'revoke-dialog.png' });
  bads.push(...(await axe(page, 'revoke-dialog')));
  const focused = await page.evaluate(() => document.activeElement?.textContent);
  console.log('focused in dialog:', focused);
  await page.keyboard.press('Escape');
  // webhook
  await page.getByRole('link', { name: 'Webhooks' }).click();
  const port = (receiver.address() as { port: number }).port;
  await page.getByLabel('Receiver URL').fill(`http://127.0.0.1:${port}/hook`);
  await page.getByRole('button', { name: 'Add subscription' }).click();
  await page.getByText('it will not be shown again').waitFor();
  const made = await call(stack.base, 'POST', '/v1/attestations', {
    key: fullKey,
    body: { type: 'ai', content: 'hello', contentType: 'text/plain', mode: 'offchain' },
  });
  console.log('attestation via REST', made.status, JSON.stringify(made.body).slice(0, 200));
  await page.waitForTimeout(4000);
  await page.screenshot({ path: OUT + 'webhook-created.png', fullPage: true });
  const routes = [
    '',
    'keys',
    'webhooks',
    'attestations',
    'audit',
    'members',
    'account',
    'support',
    'sign-up',
    'nowhere',
  ];
  for (const scheme of ['light', 'dark'] as const) {
    for (const width of [1280, 390]) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width, height: 800 });
      for (const r of routes) {
        await page.goto(`${stack.base}/dashboard/${r}`);
        await page.waitForLoadState('networkidle');
        await page.waitForTimeout(300);
        await page.screenshot({ path: `${OUT}${r || 'overview'}-${scheme}-${width}.png`, fullPage: true });
        if (width === 390 || scheme === 'dark') bads.push(...(await axe(page, `${r}-${scheme}-${width}`)));
      }
    }
  }
  const hook = await page.goto(`${stack.base}/dashboard/webhooks`);
  await page.getByRole('button', { name: /Revoke/ }).count();
  await page
    .getByRole('link', { name: /Deliveries/ })
    .first()
    .click();
  await page.waitForTimeout(500);
  await page.screenshot({ path: OUT + 'deliveries.png', fullPage: true });
  bads.push(...(await axe(page, 'deliveries')));
  void hook;
  // revoke the key in the page, then REST says 401
  await page.goto(`${stack.base}/dashboard/keys`);
  await page
    .getByRole('button', { name: /^Revoke/ })
    .first()
    .click();
  await page.getByRole('button', { name: 'Revoke permanently' }).click();
  await page.getByText(/revoked\./).waitFor();
  const after = await call(stack.base, 'POST', '/v1/attestations', {
    key: fullKey,
    body: { type: 'ai', content: 'hello2', contentType: 'text/plain', mode: 'offchain' },
  });
  console.log('after revoke', after.status, after.body.code);
  await page.screenshot({ path: OUT + 'key-revoked.png', fullPage: true });
  // sign out then sign in page
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  bads.push(...(await axe(page, 'sign-in')));
  await page.screenshot({ path: OUT + 'sign-in.png' });
  await page.getByLabel('Email').fill('olive@example.com');
  await page.getByLabel('Password').fill('wrong-password-here');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('alert').waitFor();
  console.log('wrong password says:', await page.getByRole('alert').textContent());
  await page.getByLabel('Password').fill('correct-horse-battery');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: /Overview/ }).waitFor();
  // viewer
  const viewer = await createMember(stack, 'viewer');
  const v = await newVisitor(browser, stack);
  await v.page.goto(`${stack.base}/dashboard/keys`);
  await v.page.getByRole('heading', { name: 'Sign in' }).waitFor();
  console.log('viewer redirected to', v.page.url());
  await v.page.getByLabel('Email').fill(viewer.email);
  await v.page.getByLabel('Password').fill(viewer.password);
  await v.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await v.page.getByRole('heading', { name: 'API keys' }).waitFor();
  console.log('viewer create controls:', await v.page.getByRole('button', { name: /Create|Revoke/ }).count());
  await v.page.screenshot({ path: OUT + 'viewer-keys.png', fullPage: true });
  console.log('ERRORS', errors);
  console.log('BADS', JSON.stringify(bads));
  await context.close();
  expect(true).toBe(true);
}, 180_000);

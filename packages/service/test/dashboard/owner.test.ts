import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createMember,
  launchBrowser,
  newPerson,
  newVisitor,
  openSection,
  settled,
  signIn,
  startDashboardStack,
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

const createAttestation = (key: string) =>
  call(stack.base, 'POST', '/v1/attestations', {
    key,
    body: { type: 'human', content: `owner ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
  });

describe('the launcher', () => {
  it("serves the built dashboard on the API's port, beside better-auth and the audit export", async () => {
    const page = await fetch(`${stack.base}/dashboard/keys`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self';");
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${stack.base}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const bare = await fetch(`${stack.base}/dashboard`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([308, '/dashboard/']);
    // the server's own mounts under /dashboard/api keep their paths (the longest prefix wins)
    expect(await (await fetch(`${stack.base}/dashboard/api/auth/ok`)).json()).toEqual({ ok: true });
    const exported = await fetch(`${stack.base}/dashboard/api/audit-export?format=csv`);
    expect(exported.status).toBe(401);
    expect(((await exported.json()) as { code: string }).code).toBe('UNAUTHENTICATED');
  });
});

describe('the first owner', () => {
  it('follows the setup link of a fresh start, sets a password, and a key made in the dashboard works until revoked there', async () => {
    expect(stack.setupUrl).toMatch(new RegExp(`^${stack.base}/dashboard/invite/[A-Za-z0-9_-]{20,}$`));
    const owner = newPerson('Owner');
    const { context, page } = await newVisitor(browser, stack);

    await page.goto(stack.setupUrl);
    await expect.poll(() => page.locator('main h1').textContent()).toBe('Set up your account');
    await page.getByLabel('Your name').fill(owner.name);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Create my sign-in' }).click();
    await page.getByLabel('Account name').fill('Acme Newsroom');
    await page.getByRole('button', { name: 'Accept the invitation' }).click();
    await page.waitForURL((url) => url.pathname === '/dashboard/');
    await settled(page);
    await expect.poll(() => page.locator('header').textContent()).toContain('Acme Newsroom');

    // a key, shown exactly once
    await openSection(page, 'API keys');
    await page.getByLabel('Name').fill('newsroom-ci');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.locator('.secret-value code');
    const key = (await shown.textContent()) ?? '';
    expect(key).toMatch(/^svc_free_[A-Za-z0-9]+_/);
    expect(await page.locator('main').textContent()).toContain('it will not be shown again');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await expect.poll(() => page.locator('main').textContent()).not.toContain(key);
    await page.reload();
    await settled(page);
    expect(await page.content()).not.toContain(key);
    const row = page.getByRole('row', { name: /newsroom-ci/ });
    expect(await row.textContent()).toContain('active');

    // that key works through REST ...
    const created = await createAttestation(key);
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    // ... until it is revoked here, after a confirmation
    await row.getByRole('button', { name: /^Revoke/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
    expect(await dialog.textContent()).toContain('permanent');
    await dialog.getByRole('button', { name: 'Revoke permanently' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => row.textContent()).toContain('revoked');
    const refused = await createAttestation(key);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('API_KEY_REVOKED');

    // the audit log names the owner for both
    await openSection(page, 'Audit log');
    const actorOf = async (action: string) =>
      page
        .getByRole('row')
        .filter({ has: page.getByRole('cell', { name: action, exact: true }) })
        .first()
        .getByRole('cell')
        .nth(1)
        .textContent();
    await expect.poll(() => actorOf('api_key.created')).toBe(owner.email);
    expect(await actorOf('api_key.revoked')).toBe(owner.email);
    // and its download carries them too
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'CSV' }).click(),
    ]);
    const csv = await readFile((await download.path())!, 'utf8');
    expect(csv.split('\n').filter((line) => line.includes('api_key.') && line.includes(owner.email))).toHaveLength(2);
    await context.close();
  }, 60_000);

  it('the setup link works once: opened again, it says it is no longer valid', async () => {
    const { context, page } = await newVisitor(browser, stack);
    await page.goto(stack.setupUrl);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('no longer valid');
    await context.close();
  });
});

describe('roles in the pages', () => {
  it('a viewer sees the keys but no control to create or revoke one', async () => {
    const owner = await createMember(stack, 'owner');
    const viewer = await createMember(stack, 'viewer', owner.accountId);
    await stack.service.services.keys.create({ tier: 'free', account: owner.accountName });
    const { context, page } = await newVisitor(browser, stack);
    await signIn(page, viewer);
    await openSection(page, 'API keys');
    expect(await page.getByRole('row').count()).toBeGreaterThan(1);
    expect(await page.getByRole('heading', { name: 'Create a key' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Create|Revoke/ }).count()).toBe(0);
    expect(await page.getByRole('navigation', { name: 'Dashboard' }).textContent()).not.toContain('Members');
    await context.close();
  });
});

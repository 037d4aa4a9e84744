import { randomUUID } from 'node:crypto';
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
  UI_WAIT,
  type DashboardStack,
  type Member,
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
    await expect.poll(() => page.locator('main h1').textContent(), UI_WAIT).toBe('Set up your account');
    await page.getByLabel('Your name').fill(owner.name);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Create my sign-in' }).click();
    await page.getByLabel('Account name').fill('Acme Newsroom');
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.waitForURL((url) => url.pathname === '/dashboard/');
    await settled(page);
    await expect.poll(() => page.locator('header').textContent(), UI_WAIT).toContain('Acme Newsroom');

    // a key, shown exactly once
    await openSection(page, 'API keys');
    await page.getByLabel('Name').fill('newsroom-ci');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.locator('.secret-value code');
    const key = (await shown.textContent()) ?? '';
    expect(key).toMatch(/^svc_free_[A-Za-z0-9]+_/);
    expect(await page.locator('main').textContent()).toContain('it will not be shown again');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await expect.poll(() => page.locator('main').textContent(), UI_WAIT).not.toContain(key);
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
    await expect.poll(() => row.textContent(), UI_WAIT).toContain('revoked');
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
    await expect.poll(() => actorOf('api_key.created'), UI_WAIT).toBe(owner.email);
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
    await expect.poll(() => page.getByRole('alert').textContent(), UI_WAIT).toContain('no longer valid');
    await context.close();
  });
});

describe('roles in the pages', () => {
  /** The pages with changes to make, and the table each lists its things in. */
  const SECTIONS = [
    ['API keys', 'API keys'],
    ['Webhooks', 'Webhook subscriptions'],
    ['Attestations', 'Attestations'],
  ] as const;

  /** What a member sees on those pages: each table's rows, and the controls that change something. */
  async function seen(member: Member): Promise<{ rows: string[]; controls: string[] }> {
    const { context, page } = await newVisitor(browser, stack);
    const rows: string[] = [];
    const controls: string[] = [];
    await signIn(page, member);
    for (const [section, table] of SECTIONS) {
      await openSection(page, section);
      const region = page.getByRole('region', { name: table, exact: true });
      rows.push(`${section}: ${(await region.getByRole('row').count()) - 1}`);
      for (const button of await page.getByRole('button', { name: /^(Create|Add|Revoke|Delete)/ }).all())
        controls.push(`${section}: ${(await button.textContent())?.replace(/\s.*$/, '')}`);
    }
    await context.close();
    return { rows, controls };
  }

  it('a viewer sees what an owner sees, but no control to create, revoke or delete', async () => {
    const owner = await createMember(stack, 'owner');
    const viewer = await createMember(stack, 'viewer', owner.accountId);
    const { key } = await stack.service.services.keys.create({ tier: 'free', account: owner.accountName, name: 'ci' });
    expect((await createAttestation(key)).status).toBe(201);
    await stack.db
      .insertInto('webhookSubscriptions')
      .values({
        id: randomUUID(),
        accountId: owner.accountId,
        url: 'https://hooks.example.com/a',
        events: ['attestation.created'],
        secret: 'ab'.repeat(32),
        createdAt: new Date(),
      })
      .execute();
    const [asOwner, asViewer] = await Promise.all([seen(owner), seen(viewer)]);
    expect(asOwner.rows).toEqual(['API keys: 1', 'Webhooks: 1', 'Attestations: 1']);
    expect(asViewer.rows).toEqual(asOwner.rows);
    expect(asOwner.controls).toEqual([
      'API keys: Create',
      'API keys: Revoke',
      'Webhooks: Add',
      'Webhooks: Delete',
      'Attestations: Revoke',
    ]);
    expect(asViewer.controls).toEqual([]);
  }, 30_000);
});

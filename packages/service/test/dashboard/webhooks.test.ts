import { createHmac } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  call,
  createMember,
  launchBrowser,
  newVisitor,
  openSection,
  settled,
  signIn,
  startDashboardStack,
  UI_WAIT,
  startReceiver,
  type DashboardStack,
} from './support.ts';

let stack: DashboardStack;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    // the worker delivers; the receiver is on loopback; a failed attempt is retried after a second
    startDashboardStack({
      worker: true,
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_DELAYS: '1s,1s,1s,1s' },
    }),
    launchBrowser(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('webhooks from the dashboard', () => {
  it('a subscription made in the page receives signed deliveries, and the delivery shows with its attempts', async () => {
    // the receiver refuses the first attempt, so the delivery has two to show
    const receiver = await startReceiver((i) =>
      i === 0 ? { status: 503, body: 'not yet' } : { status: 200, body: 'thanks' },
    );
    const owner = await createMember(stack, 'owner');
    const { context, page } = await newVisitor(browser, stack);
    try {
      await signIn(page, owner);
      await openSection(page, 'Webhooks');
      await page.getByLabel('Receiver URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Add subscription' }).click();
      await page.locator('.secret-value code').first().waitFor();
      const [secret = '', whsec = ''] = await page.locator('.secret-value code').allTextContents();
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      expect(whsec).toBe(`whsec_${Buffer.from(secret, 'hex').toString('base64')}`);
      await page.getByRole('button', { name: 'I have stored it' }).click();
      const row = page.getByRole('row').filter({ hasText: receiver.url });
      expect(await row.textContent()).toContain('attestation.created');

      const { key } = await stack.service.services.keys.create({ tier: 'free', account: owner.accountName });
      const created = await call(stack.base, 'POST', '/v1/attestations', {
        key,
        body: { type: 'ai', content: `hook ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);

      await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(2);
      for (const { headers, body } of receiver.received) {
        expect(headers['x-service-signature']).toBe(
          `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
        );
        expect(headers['x-service-event']).toBe('attestation.created');
        expect(JSON.parse(body)).toMatchObject({ type: 'attestation.created', data: { uid: created.body.uid } });
      }
      const deliveryId = receiver.received[0]!.headers['x-service-delivery'];
      expect(receiver.received[1]!.headers['x-service-delivery']).toBe(deliveryId);

      await row.getByRole('link', { name: /^Deliveries/ }).click();
      await settled(page);
      const card = page.getByRole('article', { name: 'attestation.created delivery, completed' });
      // the page shows what the server had when it loaded: reload until the last attempt is recorded
      await expect
        .poll(async () => (await card.count()) > 0 || (await page.reload(), await settled(page), false), UI_WAIT)
        .toBe(true);
      expect(await card.textContent()).toContain(String(deliveryId));
      const attempts = card.getByRole('row');
      // the header row, then attempt 1 (503 with its answer) and attempt 2 (200)
      expect(await attempts.count()).toBe(3);
      expect(await attempts.nth(1).textContent()).toMatch(/^(Attempt )?1.*503.*ms.*not yet$/);
      expect(await attempts.nth(2).textContent()).toMatch(/^(Attempt )?2.*200.*ms.*thanks$/);

      await page.getByLabel('State').selectOption('dead');
      await expect.poll(() => page.locator('main').textContent(), UI_WAIT).toContain('No deliveries in state dead.');
      await page.getByLabel('State').selectOption('completed');
      await card.waitFor();
    } finally {
      await context.close();
      await receiver.close();
    }
  }, 60_000);

  it('rotates the secret in the page (shown once, both signing for the window) and sends a test event', async () => {
    const receiver = await startReceiver(() => ({ status: 200, body: 'ok' }));
    const owner = await createMember(stack, 'owner');
    const { context, page } = await newVisitor(browser, stack);
    try {
      await signIn(page, owner);
      await openSection(page, 'Webhooks');
      await page.getByLabel('Receiver URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Add subscription' }).click();
      await page.locator('.secret-value code').first().waitFor();
      const [oldSecret = ''] = await page.locator('.secret-value code').allTextContents();
      await page.getByRole('button', { name: 'I have stored it' }).click();
      const row = page.getByRole('row').filter({ hasText: receiver.url });
      expect(await row.textContent()).toContain('One secret');

      await row.getByRole('button', { name: /^Rotate secret/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
      await dialog.getByLabel('Previous secret keeps signing for').selectOption({ label: '1 hour' });
      await dialog.getByRole('button', { name: 'Rotate' }).click();
      const shown = page.getByRole('region', { name: `New signing secret for ${receiver.url}` });
      await shown.waitFor();
      const [newSecret = ''] = await shown.locator('.secret-value code').allTextContents();
      expect(newSecret).toMatch(/^[0-9a-f]{64}$/);
      expect(newSecret).not.toBe(oldSecret);
      expect(await shown.textContent()).toContain('The previous secret keeps signing too until');
      expect(await axeViolations(page)).toEqual([]);
      await expect.poll(() => row.textContent(), UI_WAIT).toContain('Previous secret signs until');
      await shown.getByRole('button', { name: 'I have stored it' }).click();
      // shown once: gone from the page, and not in what the page loads again
      await page.reload();
      await settled(page);
      expect(await page.locator('main').textContent()).not.toContain(newSecret);

      await row.getByRole('button', { name: /^Send test event/ }).click();
      await expect.poll(() => page.locator('main').textContent(), UI_WAIT).toMatch(/Test event queued: delivery /);
      await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(1);
      const [{ headers, body }] = receiver.received as [{ headers: Record<string, string>; body: string }];
      expect(JSON.parse(body)).toMatchObject({ type: 'webhook.test' });
      const signed = `${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`;
      const v1 = (hex: string) => `v1,${createHmac('sha256', Buffer.from(hex, 'hex')).update(signed).digest('base64')}`;
      // within the window: both secrets sign
      expect(headers['webhook-signature']!.split(' ').sort()).toEqual([v1(newSecret), v1(oldSecret)].sort());

      await row.getByRole('link', { name: /^Deliveries/ }).click();
      await settled(page);
      const card = page.getByRole('article', { name: /^webhook\.test delivery/ });
      await expect
        .poll(async () => (await card.count()) > 0 || (await page.reload(), await settled(page), false), UI_WAIT)
        .toBe(true);
    } finally {
      await context.close();
      await receiver.close();
    }
  }, 60_000);
});

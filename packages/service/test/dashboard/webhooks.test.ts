import { createHmac } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
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
      const secret = (await page.locator('.secret-value code').textContent()) ?? '';
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
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
      expect(await attempts.nth(1).textContent()).toMatch(/^1.*503.*ms.*not yet$/);
      expect(await attempts.nth(2).textContent()).toMatch(/^2.*200.*ms.*thanks$/);

      await page.getByLabel('State').selectOption('dead');
      await expect.poll(() => page.locator('main').textContent(), UI_WAIT).toContain('No deliveries in state dead.');
      await page.getByLabel('State').selectOption('completed');
      await card.waitFor();
    } finally {
      await context.close();
      await receiver.close();
    }
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../../client/src/webhooks.ts';
import { manualClock } from '../../src/clock.ts';
import { sweepDeliveries } from '../../src/webhooks/deliver.task.ts';
import { startReceiver, type Answer, type Receiver } from '../support/receiver.ts';
import { settledDeliveries } from './support.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

const clock = manualClock(Date.parse('2026-11-22T10:00:00Z'));
let svc: TestService;
const receivers: Receiver[] = [];

beforeAll(async () => {
  svc = await startTestService({ clock, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

/** An account with a subscription to `answer`'s receiver; returns its key, secret and the receiver. */
async function subscribed(answer?: (req: unknown, i: number) => Answer, events = ['attestation.created']) {
  const { key } = await svc.createKey('pro');
  const receiver = await startReceiver(answer, clock);
  receivers.push(receiver);
  const res = await call(svc.url, 'POST', '/v1/webhooks', { key, body: { url: receiver.url, events } });
  expect(res.status).toBe(201);
  return { key, receiver, subscription: res.body as { id: string; secret: string } };
}

async function attest(key: string): Promise<string> {
  const res = await call(svc.url, 'POST', '/v1/attestations', {
    key,
    body: { type: 'human', content: `c-${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
  });
  expect(res.status).toBe(201);
  return res.body.uid;
}

/** Waits until the service has recorded `attempts` attempts of the subscription's deliveries (and released them). */
const recorded = (subscriptionId: string, attempts: number, count = 1) =>
  settledDeliveries(
    svc.db,
    subscriptionId,
    (rows) => rows.length === count && rows.every((r) => r.attempts === attempts),
    15_000,
  );

/** Moves the clock and wakes what became due (the worker's own sweep does this every 10 s). */
async function advance(ms: number): Promise<void> {
  clock.advance(ms);
  await sweepDeliveries(svc.infrastructure.db, clock, 0);
}

/** A fixed wait on purpose: that a receiver gets nothing more only time can show. */
const quiet = (ms = 400) => new Promise((r) => setTimeout(r, ms));

describe('webhook delivery', () => {
  it('signs every delivery so the documented receiver check passes, and one altered byte fails it', async () => {
    const { key, receiver, subscription } = await subscribed();
    const uid = await attest(key);
    const [request] = await receiver.waitFor(1);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['x-service-event']).toBe('attestation.created');
    expect(request!.headers['x-service-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    const signature = request!.headers['x-service-signature'] as string;
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(request!.body, signature, subscription.secret)).toBe(true);
    const altered = request!.body.replace('"type":"attestation.created"', '"type":"attestation.createe"');
    expect(verifyWebhookSignature(altered, signature, subscription.secret)).toBe(false);
    expect(verifyWebhookSignature(request!.body, signature, 'f'.repeat(64))).toBe(false);
    const event = JSON.parse(request!.body);
    expect(event).toMatchObject({
      id: expect.any(String),
      type: 'attestation.created',
      createdAt: new Date(clock.now()).toISOString(),
      data: { uid, type: 'human', mode: 'offchain', revoked: false },
    });
    expect(Object.keys(event)).toEqual(['id', 'type', 'createdAt', 'data']);
    const [row] = await recorded(subscription.id, 1);
    expect(row).toMatchObject({ state: 'completed', lastStatus: 200 });
  });

  it('retries a failing receiver at +30 s, +5 min, +30 min and +2 h with the same delivery id, then completes', async () => {
    const { key, receiver, subscription } = await subscribed((_req, i) =>
      i < 4 ? { status: 500, body: 'down for maintenance' } : { status: 200 },
    );
    await attest(key);
    await receiver.waitFor(1);
    await recorded(subscription.id, 1);
    // one millisecond short of the wait: nothing is due yet
    await advance(30 * SECOND - 1);
    await quiet();
    expect(receiver.received).toHaveLength(1);
    await advance(1);
    await receiver.waitFor(2);
    for (const [made, wait] of [
      [2, 5 * MINUTE],
      [3, 30 * MINUTE],
      [4, 120 * MINUTE],
    ] as const) {
      await recorded(subscription.id, made);
      await advance(wait);
      await receiver.waitFor(made + 1);
    }
    const [row] = await recorded(subscription.id, 5);
    expect(row).toMatchObject({ state: 'completed', lastStatus: 200 });
    const times = receiver.received.map((r) => r.at);
    expect(times.slice(1).map((t, i) => t - times[i]!)).toEqual([30 * SECOND, 5 * MINUTE, 30 * MINUTE, 120 * MINUTE]);
    expect(new Set(receiver.received.map((r) => r.headers['x-service-delivery'])).size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);

    const page = await call(svc.url, 'GET', `/v1/webhooks/${subscription.id}/deliveries`, { key });
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.data[0]).toMatchObject({ id: row!.id, state: 'completed', attempts: 5, lastStatus: 200 });
    expect(page.body.data[0].attemptLog.map((a: { status: number }) => a.status)).toEqual([500, 500, 500, 500, 200]);
    expect(page.body.data[0].attemptLog[0]).toMatchObject({
      number: 1,
      responseBody: 'down for maintenance',
      durationMs: expect.any(Number),
    });
  });

  it('makes a delivery dead after five failures, keeping its last status, and writes it in the audit log', async () => {
    const { key, receiver, subscription } = await subscribed(() => ({ status: 503 }));
    await attest(key);
    await receiver.waitFor(1);
    for (const [made, wait] of [
      [1, 30 * SECOND],
      [2, 5 * MINUTE],
      [3, 30 * MINUTE],
      [4, 120 * MINUTE],
    ] as const) {
      await recorded(subscription.id, made);
      await advance(wait);
      await receiver.waitFor(made + 1);
    }
    const [row] = await recorded(subscription.id, 5);
    expect(row).toMatchObject({ state: 'dead', lastStatus: 503, lastError: 'receiver answered 503' });
    await advance(24 * 60 * MINUTE);
    await quiet();
    expect(receiver.received).toHaveLength(5);
    const audit = await svc.db
      .selectFrom('auditEntries')
      .select(['action', 'resource'])
      .where('resource', '=', `webhook_delivery:${row!.id}`)
      .execute();
    expect(audit).toEqual([{ action: 'webhook_delivery.dead', resource: `webhook_delivery:${row!.id}` }]);
    const dead = await call(svc.url, 'GET', `/v1/webhooks/${subscription.id}/deliveries?state=dead`, { key });
    expect(dead.body.data.map((d: { id: string }) => d.id)).toEqual([row!.id]);
  });

  it('counts a receiver that sleeps past 10 s as a failed attempt', async () => {
    const { key, receiver, subscription } = await subscribed((_req, i) =>
      i === 0 ? { status: 200, delayMs: 11_000 } : { status: 200 },
    );
    await attest(key);
    await receiver.waitFor(1);
    const [row] = await recorded(subscription.id, 1);
    expect(row).toMatchObject({ state: 'pending', lastStatus: null, lastError: 'timed out after 10000 ms' });
    await advance(30 * SECOND);
    await receiver.waitFor(2);
    expect((await recorded(subscription.id, 2))[0]).toMatchObject({ state: 'completed', lastStatus: 200 });
  }, 30_000);

  it('stops every delivery of a deleted subscription: its three pending deliveries never reach the receiver again', async () => {
    const { key, receiver, subscription } = await subscribed(() => ({ status: 500 }));
    await Promise.all([attest(key), attest(key), attest(key)]);
    await receiver.waitFor(3);
    await recorded(subscription.id, 1, 3);
    const deleted = await call(svc.url, 'DELETE', `/v1/webhooks/${subscription.id}`, { key });
    expect(deleted.status).toBe(204);
    await advance(3 * 60 * MINUTE);
    await attest(key);
    await quiet(800);
    expect(receiver.received).toHaveLength(3);
    const states = await svc.db
      .selectFrom('webhookDeliveries')
      .select('state')
      .where('subscriptionId', '=', subscription.id)
      .execute();
    expect(states.map((s) => s.state)).toEqual(['dropped', 'dropped', 'dropped']);
  });
});

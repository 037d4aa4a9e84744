// Standard Webhooks by its own `standardwebhooks` package: deliveries verify, a stale replay fails, rotation overlaps.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyWebhookSignature } from '../../../client/src/webhooks.ts';
import { manualClock } from '../../src/clock.ts';
import { sweepDeliveries } from '../../src/webhooks/deliver.task.ts';
import { startReceiver, type Received, type Receiver } from '../support/receiver.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

const clock = manualClock(Date.now());
let svc: TestService;
const receivers: Receiver[] = [];

beforeAll(async () => {
  svc = await startTestService({ clock, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** What `standardwebhooks` makes of a request with this secret, on the service's clock: the event, or its refusal. */
function verdict(
  secret: string,
  request: Pick<Received, 'headers' | 'body'>,
): { ok: true; event: any } | { ok: false; why: string } {
  vi.useFakeTimers({ toFake: ['Date'], now: clock.now() });
  try {
    return { ok: true, event: new Webhook(secret).verify(request.body, request.headers as Record<string, string>) };
  } catch (error) {
    return { ok: false, why: (error as Error).message };
  } finally {
    vi.useRealTimers();
  }
}

/** A receiver that accepts only what `standardwebhooks` verifies with `secret()` (204), else 400 with the reason. */
async function standardReceiver(secret: () => string): Promise<Receiver> {
  const receiver = await startReceiver((request) => {
    const checked = verdict(secret(), request);
    return checked.ok ? { status: 204 } : { status: 400, body: checked.why };
  }, clock);
  receivers.push(receiver);
  return receiver;
}

async function subscribe(key: string, url: string, events = ['attestation.created']) {
  const res = await call(svc.url, 'POST', '/v1/webhooks', { key, body: { url, events } });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string; standardWebhooksSecret: string; rotation: null };
}

async function sendTest(key: string, id: string) {
  const res = await call(svc.url, 'POST', `/v1/webhooks/${id}/test`, { key, body: {} });
  expect(res.status).toBe(202);
  return res.body as { eventId: string; deliveryId: string };
}

/** The audit entries of a resource, oldest first. */
const auditOf = (resource: string) =>
  svc.db
    .selectFrom('auditEntries')
    .select(['action', 'details'])
    .where('resource', '=', resource)
    .orderBy('id')
    .execute();

/** The answers the service recorded for a delivery's attempts, once it has `count` of them. */
async function attemptsOf(key: string, subscriptionId: string, deliveryId: string, count = 1) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const page = await call(svc.url, 'GET', `/v1/webhooks/${subscriptionId}/deliveries`, { key });
    const delivery = page.body.data.find((d: { id: string }) => d.id === deliveryId);
    if (delivery?.attemptLog.length >= count) return delivery;
    if (Date.now() > deadline) throw new Error(`delivery ${deliveryId} not recorded: ${JSON.stringify(page.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Standard Webhooks headers', () => {
  it('a standardwebhooks receiver verifies a real delivery, and refuses its replay once older than 5 minutes', async () => {
    const { key } = await svc.createKey('pro');
    let secret = '';
    const receiver = await standardReceiver(() => secret);
    const subscription = await subscribe(key, receiver.url);
    secret = subscription.standardWebhooksSecret;
    expect(secret).toBe(`whsec_${Buffer.from(subscription.secret, 'hex').toString('base64')}`);
    const created = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', content: `c-${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
    });
    expect(created.status).toBe(201);
    const [request] = await receiver.waitFor(1);
    const headers = request!.headers;
    // our X-Service-* headers are all still there, and the scheme's id is the delivery's
    expect(headers['webhook-id']).toBe(headers['x-service-delivery']);
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(clock.now() / 1000)));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verifyWebhookSignature(request!.body, headers['x-service-signature'] as string, subscription.secret)).toBe(
      true,
    );
    const checked = verdict(secret, request!);
    expect(checked).toMatchObject({
      ok: true,
      event: { type: 'attestation.created', data: { uid: created.body.uid } },
    });
    const delivery = await attemptsOf(key, subscription.id, headers['webhook-id'] as string);
    expect(delivery.attemptLog[0]).toMatchObject({ status: 204 });

    // a captured delivery sent again 5 minutes and 1 second later: the receiver refuses it
    clock.advance(5 * MINUTE + 1_000);
    const replay = await fetch(receiver.url, {
      method: 'POST',
      headers: Object.fromEntries(
        ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, headers[h] as string]),
      ),
      body: request!.body,
    });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toBe('Message timestamp too old');
  });

  it('keeps webhook-id across retries and stamps each attempt with its own time', async () => {
    const { key } = await svc.createKey('pro');
    const receiver = await startReceiver((_r, i) => ({ status: i === 0 ? 503 : 200 }), clock);
    receivers.push(receiver);
    const subscription = await subscribe(key, receiver.url);
    const { deliveryId } = await sendTest(key, subscription.id);
    const [first] = await receiver.waitFor(1);
    await attemptsOf(key, subscription.id, deliveryId, 1);
    clock.advance(30_000);
    await sweepDeliveries(svc.infrastructure.db, clock, 0);
    const [, second] = await receiver.waitFor(2);
    expect([first!.headers['webhook-id'], second!.headers['webhook-id']]).toEqual([deliveryId, deliveryId]);
    expect(Number(second!.headers['webhook-timestamp']) - Number(first!.headers['webhook-timestamp'])).toBe(30);
    expect(second!.headers['webhook-signature']).not.toBe(first!.headers['webhook-signature']);
    const hook = new Webhook(subscription.standardWebhooksSecret);
    for (const r of [first!, second!])
      expect(hook.sign(deliveryId, new Date(Number(r.headers['webhook-timestamp']) * 1000), r.body)).toBe(
        r.headers['webhook-signature'],
      );
  });
});

describe('secret rotation', () => {
  it('signs with both secrets for the window, then with the new one only', async () => {
    const { key } = await svc.createKey('pro');
    const receiver = await startReceiver(() => ({ status: 200 }), clock);
    receivers.push(receiver);
    const old = await subscribe(key, receiver.url);

    const rotatedAt = clock.now();
    const res = await call(svc.url, 'POST', `/v1/webhooks/${old.id}/rotate-secret`, {
      key,
      body: { previousSecretTtlHours: 24 },
    });
    expect(res.status).toBe(200);
    const expiresAt = new Date(rotatedAt + 24 * HOUR).toISOString();
    expect(res.body).toEqual({
      id: old.id,
      secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      standardWebhooksSecret: expect.stringMatching(/^whsec_/),
      rotation: { previousSecretExpiresAt: expiresAt },
    });
    const fresh = res.body as { secret: string; standardWebhooksSecret: string };
    expect(fresh.secret).not.toBe(old.secret);
    const listed = await call(svc.url, 'GET', '/v1/webhooks', { key });
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: old.id, rotation: { previousSecretExpiresAt: expiresAt } }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(fresh.secret);

    // inside the window: two signatures, either secret verifies; X-Service-Signature stays on the previous secret
    clock.advance(24 * HOUR - MINUTE);
    await sendTest(key, old.id);
    const [during] = await receiver.waitFor(1);
    expect((during!.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect(verdict(old.standardWebhooksSecret, during!)).toMatchObject({ ok: true, event: { type: 'webhook.test' } });
    expect(verdict(fresh.standardWebhooksSecret, during!)).toMatchObject({ ok: true });
    const spec = during!.headers['x-service-signature'] as string;
    expect(verifyWebhookSignature(during!.body, spec, old.secret)).toBe(true);

    // after the window: the new secret only, on both schemes
    clock.advance(MINUTE);
    await sendTest(key, old.id);
    const [, after] = await receiver.waitFor(2);
    expect((after!.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
    expect(verdict(fresh.standardWebhooksSecret, after!)).toMatchObject({ ok: true });
    expect(verdict(old.standardWebhooksSecret, after!)).toEqual({ ok: false, why: 'No matching signature found' });
    expect(verifyWebhookSignature(after!.body, after!.headers['x-service-signature'] as string, fresh.secret)).toBe(
      true,
    );
    expect(verifyWebhookSignature(after!.body, after!.headers['x-service-signature'] as string, old.secret)).toBe(
      false,
    );
    const afterList = await call(svc.url, 'GET', '/v1/webhooks', { key });
    expect(afterList.body.data[0].rotation).toBeNull();

    const audit = await auditOf(`webhook:${old.id}`);
    expect(audit.map((a) => a.action)).toEqual([
      'webhook.subscribed',
      'webhook.secret_rotated',
      'webhook.test_sent',
      'webhook.test_sent',
    ]);
    expect(audit[1]!.details).toMatchObject({ previousSecretExpiresAt: expiresAt });
    for (const s of [old.secret, fresh.secret]) expect(JSON.stringify(audit)).not.toContain(s);
  });

  it('retires the previous secret at once when asked (a leaked secret)', async () => {
    const { key } = await svc.createKey('pro');
    const receiver = await startReceiver(() => ({ status: 200 }), clock);
    receivers.push(receiver);
    const old = await subscribe(key, receiver.url);
    const res = await call(svc.url, 'POST', `/v1/webhooks/${old.id}/rotate-secret`, {
      key,
      body: { previousSecretTtlHours: 0 },
    });
    expect(res.body.rotation).toBeNull();
    await sendTest(key, old.id);
    const [request] = await receiver.waitFor(1);
    expect(verdict(res.body.standardWebhooksSecret, request!)).toMatchObject({ ok: true });
    expect(verdict(old.standardWebhooksSecret, request!)).toMatchObject({ ok: false });
  });

  it('replays an Idempotency-Key rotation with the same secret, and a second rotation retires the oldest secret', async () => {
    const { key } = await svc.createKey('pro');
    const receiver = await startReceiver(() => ({ status: 200 }), clock);
    receivers.push(receiver);
    const first = await subscribe(key, receiver.url);
    const rotate = (idempotencyKey: string) =>
      call(svc.url, 'POST', `/v1/webhooks/${first.id}/rotate-secret`, {
        key,
        body: { previousSecretTtlHours: 24 },
        headers: { 'idempotency-key': idempotencyKey },
      });
    const second = await rotate('rotate-once');
    const again = await rotate('rotate-once');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(second.body);
    const rotations = (await auditOf(`webhook:${first.id}`)).filter((a) => a.action === 'webhook.secret_rotated');
    expect(rotations).toHaveLength(1);

    const third = await rotate('rotate-twice');
    await sendTest(key, first.id);
    const [request] = await receiver.waitFor(1);
    expect(verdict(third.body.standardWebhooksSecret, request!)).toMatchObject({ ok: true });
    expect(verdict(second.body.standardWebhooksSecret, request!)).toMatchObject({ ok: true });
    expect(verdict(first.standardWebhooksSecret, request!)).toMatchObject({ ok: false });
  });

  it("another account's subscription is not found for rotation and test events, and stays untouched", async () => {
    const owner = await svc.createKey('pro');
    const other = await svc.createKey('pro');
    const receiver = await startReceiver(() => ({ status: 200 }), clock);
    receivers.push(receiver);
    const subscription = await subscribe(owner.key, receiver.url);
    const stored = svc.db.selectFrom('webhookSubscriptions').selectAll().where('id', '=', subscription.id);
    const before = await stored.execute();
    const rotate = await call(svc.url, 'POST', `/v1/webhooks/${subscription.id}/rotate-secret`, {
      key: other.key,
      body: {},
    });
    expect(rotate.status).toBe(404);
    expect(rotate.body.code).toBe('NOT_FOUND');
    const test = await call(svc.url, 'POST', `/v1/webhooks/${subscription.id}/test`, { key: other.key, body: {} });
    expect(test.status).toBe(404);
    const bad = await call(svc.url, 'POST', `/v1/webhooks/${subscription.id}/rotate-secret`, {
      key: owner.key,
      body: { previousSecretTtlHours: 1000 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
    expect(await stored.execute()).toEqual(before);
    expect(before[0]!.previousSecret).toBeNull();
    expect(receiver.received).toHaveLength(0);
  });

  it('a test event is listed among the deliveries with its type, and counts against no quota', async () => {
    const { key, prefix } = await svc.createKey('free');
    await svc.chargeQuota(prefix, 20);
    const receiver = await startReceiver(() => ({ status: 200 }), clock);
    receivers.push(receiver);
    const subscription = await subscribe(key, receiver.url);
    const sent = await sendTest(key, subscription.id);
    const [request] = await receiver.waitFor(1);
    expect(JSON.parse(request!.body)).toEqual({
      id: sent.eventId,
      type: 'webhook.test',
      createdAt: expect.any(String),
      data: { subscriptionId: subscription.id, message: expect.stringContaining('test event') },
    });
    expect(request!.headers['x-service-event']).toBe('webhook.test');
    const delivery = await attemptsOf(key, subscription.id, sent.deliveryId);
    expect(delivery).toMatchObject({ event: 'webhook.test', eventId: sent.eventId });
  });
});

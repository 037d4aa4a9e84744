// The SDK's Standard Webhooks verifier against real deliveries of a running service: the timestamp tolerance,
// either secret during a rotation and only the new one after it, both secret forms, and the typed event union.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../server/src/clock.ts';
import { startReceiver, type Received, type Receiver } from '../../server/test/support/receiver.ts';
import { startTestService, type TestService } from '../../server/test/support/service.ts';
import {
  createClient,
  signStandardWebhook,
  verifyWebhook,
  verifyWebhookSignature,
  WebhookVerificationError,
  type WebhookEvent,
} from '../src/index.ts';
import { caught } from './caught.ts';

const clock = manualClock(Date.parse('2026-11-22T10:00:00Z'));
let svc: TestService;
let receiver: Receiver;

beforeAll(async () => {
  svc = await startTestService({ clock, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  receiver = await startReceiver(() => ({ status: 200 }), clock);
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
});

const HOUR = 3_600_000;
const now = () => clock.now();

/** The refusal's reason, or 'accepted'. */
function outcome(request: Received, secret: string | string[], toleranceSeconds?: number): string {
  try {
    verifyWebhook(request.body, request.headers as Record<string, string>, secret, { now, toleranceSeconds });
    return 'accepted';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}

describe('SDK: verifyWebhook (Standard Webhooks)', () => {
  it('verifies a real delivery with either secret form, and refuses it outside the tolerance', async () => {
    const client = createClient({ baseUrl: svc.url, apiKey: (await svc.createKey('pro')).key });
    const subscription = await client.webhooks.create({ url: receiver.url, events: ['attestation.created'] });
    const sent = await client.webhooks.sendTest(subscription.id);
    const request = (await receiver.waitFor(receiver.received.length + 1)).at(-1)!;

    const event: WebhookEvent = verifyWebhook(
      request.body,
      request.headers as Record<string, string>,
      subscription.secret,
      { now },
    );
    // the union narrows on `type`
    if (event.type !== 'webhook.test') throw new Error(`unexpected ${event.type}`);
    expect(event.data.subscriptionId).toBe(subscription.id);
    expect(request.headers['webhook-id']).toBe(sent.deliveryId);
    expect(outcome(request, subscription.standardWebhooksSecret)).toBe('accepted');
    expect(outcome(request, 'b'.repeat(64))).toBe('no-matching-signature');
    expect(outcome({ ...request, body: request.body.replace('test', 'tost') }, subscription.secret)).toBe(
      'no-matching-signature',
    );

    clock.advance(5 * 60_000);
    expect(outcome(request, subscription.secret)).toBe('accepted');
    clock.advance(1_000);
    expect(outcome(request, subscription.secret)).toBe('too-old');
    expect(outcome(request, subscription.secret, 600)).toBe('accepted');
    clock.advance(-20 * 60_000);
    expect(outcome(request, subscription.secret)).toBe('too-new');
    clock.advance(14 * 60_000);
    expect(outcome({ ...request, headers: { ...request.headers, 'webhook-id': undefined } }, subscription.secret)).toBe(
      'missing-headers',
    );
    expect(
      outcome({ ...request, headers: { ...request.headers, 'webhook-timestamp': '1e9' } }, subscription.secret),
    ).toBe('bad-timestamp');
  });

  it('during a rotation accepts either secret; after the window, only the new one', async () => {
    const client = createClient({ baseUrl: svc.url, apiKey: (await svc.createKey('pro')).key });
    const hook = await startReceiver(() => ({ status: 200 }), clock);
    try {
      const old = await client.webhooks.create({ url: hook.url, events: ['attestation.created'] });
      const rotated = await client.webhooks.rotateSecret(old.id, { previousSecretTtlHours: 1 });
      expect(rotated.rotation).toEqual({ previousSecretExpiresAt: new Date(clock.now() + HOUR).toISOString() });
      expect((await client.webhooks.list()).data[0]!.rotation).toEqual(rotated.rotation);

      await client.webhooks.sendTest(old.id);
      const [during] = await hook.waitFor(1);
      for (const secret of [old.secret, rotated.secret, rotated.standardWebhooksSecret, [old.secret, rotated.secret]])
        expect(outcome(during!, secret)).toBe('accepted');
      const spec = during!.headers['x-service-signature'] as string;
      expect(verifyWebhookSignature(during!.body, spec, [rotated.secret, old.secret])).toBe(true);

      clock.advance(HOUR);
      await client.webhooks.sendTest(old.id);
      const [, after] = await hook.waitFor(2);
      expect(outcome(after!, rotated.secret)).toBe('accepted');
      expect(outcome(after!, old.secret)).toBe('no-matching-signature');
      expect(outcome(after!, [old.secret, rotated.secret])).toBe('accepted');
      expect((await client.webhooks.list()).data[0]!.rotation).toBeNull();

      const stranger = createClient({ baseUrl: svc.url, apiKey: (await svc.createKey('pro')).key });
      expect((await caught(stranger.webhooks.rotateSecret(old.id))).code).toBe('NOT_FOUND');
      expect((await caught(stranger.webhooks.sendTest(old.id))).code).toBe('NOT_FOUND');
    } finally {
      await hook.close();
    }
  });

  it('signStandardWebhook matches the scheme for a receiver to test itself with', () => {
    const secret = `whsec_${Buffer.from('c'.repeat(64), 'hex').toString('base64')}`;
    const body = '{"id":"e","type":"webhook.test","createdAt":"2026-11-22T10:00:00.000Z","data":{}}';
    const ts = Math.floor(clock.now() / 1000);
    const headers = new Headers({
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(ts),
      'webhook-signature': `v1,bm90IGl0 ${signStandardWebhook('msg_1', ts, body, secret)}`,
    });
    expect(verifyWebhook(Buffer.from(body), headers, 'c'.repeat(64), { now }).type).toBe('webhook.test');
  });
});

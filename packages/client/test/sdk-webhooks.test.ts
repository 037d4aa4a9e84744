import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../server/test/support/receiver.ts';
import { startTestService, type TestService } from '../../server/test/support/service.ts';
import { createClient, signWebhookBody, verifyWebhookSignature } from '../src/index.ts';
import { caught } from './caught.ts';

let svc: TestService;
let receiver: Receiver;

beforeAll(async () => {
  svc = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  receiver = await startReceiver();
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
});

describe('SDK: webhooks', () => {
  it('subscribes, receives a verifiable delivery, inspects it, lists and deletes', async () => {
    const { key } = await svc.createKey('pro');
    const client = createClient({ baseUrl: svc.url, apiKey: key });
    const subscription = await client.webhooks.create({ url: receiver.url, events: ['attestation.created'] });
    expect(subscription.secret).toMatch(/^[0-9a-f]{64}$/);

    const created = await client.attestations.create({
      type: 'human',
      content: `sdk hook ${Math.random()}`,
      contentType: 'text/plain',
      mode: 'offchain',
    });
    const [request] = await receiver.waitFor(1);
    expect(
      verifyWebhookSignature(request!.body, request!.headers['x-service-signature'] as string, subscription.secret),
    ).toBe(true);
    expect(JSON.parse(request!.body).data.uid).toBe(created.uid);

    let page = await client.webhooks.deliveries(subscription.id);
    for (let i = 0; i < 50 && page.data[0]?.state !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      page = await client.webhooks.deliveries(subscription.id);
    }
    expect(page).toMatchObject({
      nextCursor: null,
      data: [
        {
          id: request!.headers['x-service-delivery'],
          event: 'attestation.created',
          state: 'completed',
          attempts: 1,
          attemptLog: [{ number: 1, status: 200 }],
        },
      ],
    });
    expect((await client.webhooks.deliveries(subscription.id, { state: 'dead' })).data).toEqual([]);

    const { data } = await client.webhooks.list();
    expect(data).toEqual([
      {
        id: subscription.id,
        url: receiver.url,
        events: ['attestation.created'],
        createdAt: subscription.createdAt,
        rotation: null,
      },
    ]);
    await client.webhooks.delete(subscription.id);
    expect((await client.webhooks.list()).data).toEqual([]);
  });

  it('surfaces VALIDATION_FAILED for an unknown event kind and NOT_FOUND for a subscription of another account', async () => {
    const a = createClient({ baseUrl: svc.url, apiKey: (await svc.createKey()).key });
    const b = createClient({ baseUrl: svc.url, apiKey: (await svc.createKey()).key });
    const invalid = await caught(
      a.webhooks.create({ url: receiver.url, events: ['attestation.exploded' as 'attestation.created'] }),
    );
    expect(invalid.code).toBe('VALIDATION_FAILED');
    const mine = await a.webhooks.create({ url: receiver.url, events: ['batch.completed'] });
    expect((await caught(b.webhooks.delete(mine.id))).code).toBe('NOT_FOUND');
    expect((await caught(b.webhooks.deliveries(mine.id))).code).toBe('NOT_FOUND');
    expect((await a.webhooks.list()).data).toHaveLength(1);
  });

  it('verifyWebhookSignature accepts bytes or text and rejects malformed headers', () => {
    const body = '{"id":"e","type":"attestation.created"}';
    const secret = 'a'.repeat(64);
    const header = signWebhookBody(body, secret);
    expect(verifyWebhookSignature(Buffer.from(body), header, secret)).toBe(true);
    for (const bad of [
      undefined,
      null,
      '',
      'sha256=',
      header.toUpperCase(),
      `sha1=${header.slice(7)}`,
      `${header}00`,
    ]) {
      expect(verifyWebhookSignature(body, bad, secret)).toBe(false);
    }
  });
});

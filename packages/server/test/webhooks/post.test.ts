import { afterAll, describe, expect, it } from 'vitest';
import { postWebhook, RESPONSE_BODY_LIMIT, signatureOf } from '../../src/webhooks/post.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

const request = (url: string) => ({
  url,
  secret: 'c'.repeat(64),
  deliveryId: '0d4c1f0e-8d6a-4a43-9a7b-3f7c2f1f2a10',
  eventType: 'attestation.created',
  body: '{"id":"e1"}',
});
const open = { allowPrivate: true, resolve: async () => [{ address: '127.0.0.1', family: 4 as const }] };

describe('one delivery attempt', () => {
  it('re-checks the address at delivery time: a name that now resolves inside is refused without connecting', async () => {
    const target = await receiver();
    const port = new URL(target.url).port;
    const rebound = { allowPrivate: false, resolve: async () => [{ address: '127.0.0.1', family: 4 as const }] };
    const result = await postWebhook(request(`https://hooks.example:${port}/hook`), rebound);
    expect(result).toMatchObject({ ok: false, status: null, error: expect.stringContaining('refused') });
    expect(target.received).toHaveLength(0);
  });

  it('connects to the vetted address, not to a second DNS answer', async () => {
    const target = await receiver();
    const port = new URL(target.url).port;
    let lookups = 0;
    const counting = {
      allowPrivate: true,
      resolve: async () => (lookups++, [{ address: '127.0.0.1', family: 4 as const }]),
    };
    const result = await postWebhook(request(`http://hooks.example:${port}/hook`), counting);
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(lookups).toBe(1);
    expect(target.received[0]!.headers.host).toBe(`hooks.example:${port}`);
  });

  it('does not follow redirects: a 302 is a failed attempt and the other address hears nothing', async () => {
    const elsewhere = await receiver();
    const redirecting = await receiver(() => ({ status: 302, body: elsewhere.url }));
    const result = await postWebhook(request(redirecting.url), open);
    expect(result).toMatchObject({ ok: false, status: 302, error: 'receiver answered 302' });
    expect(elsewhere.received).toHaveLength(0);
  });

  it('keeps the first 1 KiB of a large answer and sends the X-Service-* headers', async () => {
    const chatty = await receiver(() => ({ status: 500, body: 'x'.repeat(100_000) }));
    const result = await postWebhook(request(chatty.url), open);
    expect(result.responseBody).toHaveLength(RESPONSE_BODY_LIMIT);
    const [got] = chatty.received;
    expect(got!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-event': 'attestation.created',
      'x-service-delivery': request('').deliveryId,
      'x-service-signature': signatureOf('{"id":"e1"}', 'c'.repeat(64)),
    });
  });

  it('reports a refused connection as an error, never a throw', async () => {
    const gone = await receiver();
    await gone.close();
    const result = await postWebhook(request(gone.url), open);
    expect(result).toMatchObject({ ok: false, status: null, error: 'connection failed: ECONNREFUSED' });
  });

  it('gives up after the timeout', async () => {
    const slow = await receiver(() => ({ status: 200, delayMs: 2_000 }));
    const result = await postWebhook(request(slow.url), open, 300);
    expect(result).toMatchObject({ ok: false, status: null, error: 'timed out after 300 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
  });
});

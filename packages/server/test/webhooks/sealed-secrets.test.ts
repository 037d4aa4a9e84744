// Webhook signing secrets at rest: the database holds them sealed under SERVICE_SECRET, deliveries still verify with
// the secret shown once, rows from before sealing deliver and are sealed at the worker's start, and a rotated
// SERVICE_SECRET still opens them (and the start seals them again under the new one).
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../../client/src/webhooks.ts';
import { manualClock } from '../../src/clock.ts';
import { Secret } from '../../src/config.ts';
import { webhookSecrets } from '../../src/webhooks/secret-seal.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

const SECRET_A = 'webhook-seal-test-secret-a-0123456789abcdef';
const SECRET_B = 'webhook-seal-test-secret-b-0123456789abcdef';
const clock = manualClock(Date.parse('2026-11-22T10:00:00Z'));
const receivers: Receiver[] = [];
const services: TestService[] = [];

afterAll(async () => {
  for (const s of services) await s.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

async function start(env: Record<string, string> = {}): Promise<TestService> {
  const svc = await startTestService({ clock, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', ...env } });
  services.push(svc);
  return svc;
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver(() => ({ status: 200 }), clock);
  receivers.push(r);
  return r;
}

const stored = (svc: TestService, id: string) =>
  svc.db
    .selectFrom('webhookSubscriptions')
    .select(['secret', 'previousSecret'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

/** A `webhook.test` delivery's request as the receiver got it (the nth). */
async function testDelivery(svc: TestService, key: string, id: string, to: Receiver, nth: number) {
  expect((await call(svc.url, 'POST', `/v1/webhooks/${id}/test`, { key, body: {} })).status).toBe(202);
  const requests = await to.waitFor(nth);
  return requests[nth - 1]!;
}

const signedBy = (request: { body: string; headers: Record<string, unknown> }, secret: string) =>
  verifyWebhookSignature(request.body, request.headers['x-service-signature'] as string, secret);

describe('webhook secrets at rest', () => {
  it('are stored sealed; deliveries verify with the secret shown, before and during a rotation', async () => {
    const svc = await start();
    const to = await receiver();
    const { key } = await svc.createKey('pro');
    const created = await call(svc.url, 'POST', '/v1/webhooks', {
      key,
      body: { url: to.url, events: ['attestation.created'] },
    });
    expect(created.status).toBe(201);
    const { id, secret } = created.body as { id: string; secret: string };
    const row = await stored(svc, id);
    expect(row.secret).toMatch(/^w1\./);
    const dump = JSON.stringify(await svc.db.selectFrom('webhookSubscriptions').selectAll().execute());
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(Buffer.from(secret, 'hex').toString('base64'));
    expect(signedBy(await testDelivery(svc, key, id, to, 1), secret)).toBe(true);

    const rotated = await call(svc.url, 'POST', `/v1/webhooks/${id}/rotate-secret`, {
      key,
      body: { previousSecretTtlHours: 1 },
    });
    expect(rotated.status).toBe(200);
    const fresh = (rotated.body as { secret: string }).secret;
    const after = await stored(svc, id);
    expect(after.previousSecret).toBe(row.secret);
    expect(JSON.stringify(after)).not.toContain(fresh);
    const during = await testDelivery(svc, key, id, to, 2);
    expect(signedBy(during, secret)).toBe(true); // X-Service-Signature stays on the previous secret in the window
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
  });

  it("keeps an Idempotency-Key's stored answer sealed, and replays it with the secret", async () => {
    const svc = await start();
    const to = await receiver();
    const { key } = await svc.createKey('pro');
    const create = () =>
      call(svc.url, 'POST', '/v1/webhooks', {
        key,
        headers: { 'idempotency-key': 'sealed-answer' },
        body: { url: to.url, events: ['attestation.created'] },
      });
    const first = await create();
    expect(first.status).toBe(201);
    const { secret } = first.body as { secret: string };
    const dump = JSON.stringify(await svc.db.selectFrom('idempotencyRecords').selectAll().execute());
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(Buffer.from(secret, 'hex').toString('base64'));
    const again = await create();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('a subscription stored before sealing still delivers, and the worker start seals it', async () => {
    const svc = await start({ SERVICE_SECRET: SECRET_A });
    const to = await receiver();
    const { key, account } = await svc.createKey('pro');
    const plain = randomUUID().replaceAll('-', '').repeat(2);
    const id = randomUUID();
    const { id: accountId } = await svc.db
      .selectFrom('accounts')
      .select('id')
      .where('name', '=', account)
      .executeTakeFirstOrThrow();
    await svc.db
      .insertInto('webhookSubscriptions')
      .values({ id, accountId, url: to.url, events: ['attestation.created'], secret: plain, createdAt: new Date() })
      .execute();
    expect(signedBy(await testDelivery(svc, key, id, to, 1), plain)).toBe(true);
    await svc.stop();
    services.splice(services.indexOf(svc), 1);

    // a restart with a rotated SERVICE_SECRET: the start seals the plain row under the new secret
    const next = await start({
      DATABASE_URL: svc.databaseUrl,
      SERVICE_SECRET: SECRET_B,
      SERVICE_SECRET_PREVIOUS: SECRET_A,
    });
    const row = await stored(next, id);
    expect(row.secret).toMatch(/^w1\./);
    const onlyB = webhookSecrets({ current: new Secret(SECRET_B), previous: undefined });
    expect(onlyB.open(row.secret)).toBe(plain);
    expect(signedBy(await testDelivery(next, key, id, to, 2), plain)).toBe(true);
  }, 120_000);

  it('a secret sealed under SERVICE_SECRET_PREVIOUS still signs after a restart, and is sealed again', async () => {
    const svc = await start({ SERVICE_SECRET: SECRET_A });
    const to = await receiver();
    const { key } = await svc.createKey('pro');
    const created = await call(svc.url, 'POST', '/v1/webhooks', {
      key,
      body: { url: to.url, events: ['attestation.created'] },
    });
    const { id, secret } = created.body as { id: string; secret: string };
    const underA = (await stored(svc, id)).secret;
    await svc.stop();
    services.splice(services.indexOf(svc), 1);

    const next = await start({
      DATABASE_URL: svc.databaseUrl,
      SERVICE_SECRET: SECRET_B,
      SERVICE_SECRET_PREVIOUS: SECRET_A,
    });
    const resealed = (await stored(next, id)).secret;
    expect(resealed).not.toBe(underA);
    expect(webhookSecrets({ current: new Secret(SECRET_B), previous: undefined }).open(resealed)).toBe(secret);
    expect(signedBy(await testDelivery(next, key, id, to, 1), secret)).toBe(true);
  }, 120_000);
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SUBSCRIPTIONS } from '../../src/webhooks/service.ts';
import { isUrlTaken } from '../../src/webhooks/store.ts';
import type { Resolver } from '../../src/webhooks/url-guard.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

/** DNS as the tests need it: names that resolve inside, and one public name (no network here). */
const resolve: Resolver = async (host) => {
  const zone: Record<string, Array<{ address: string; family: 4 | 6 }>> = {
    'internal.example': [{ address: '10.0.0.1', family: 4 }],
    'rebind.example': [
      { address: '93.184.216.34', family: 4 },
      { address: '192.168.1.10', family: 4 },
    ],
    'metadata.example': [{ address: 'fd00:ec2::254', family: 6 }],
    'hooks.example': [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ],
  };
  if (zone[host]) return zone[host]!;
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ worker: false, resolve });
}, 60_000);
afterAll(() => svc?.stop());

const HOOK = 'https://hooks.example/attestations';
const subscriptionRow = (id: string) => svc.db.selectFrom('webhookSubscriptions').selectAll().where('id', '=', id);

describe('webhook subscriptions', () => {
  it('creates with a 64-hex secret shown once, lists without it, deletes with 204', async () => {
    const { key } = await svc.createKey();
    const created = await call(svc.url, 'POST', '/v1/webhooks', {
      key,
      body: { url: HOOK, events: ['attestation.created', 'batch.completed'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: HOOK,
      events: ['attestation.created', 'batch.completed'],
      secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      standardWebhooksSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: expect.any(String),
      rotation: null,
    });
    expect(Buffer.from(created.body.standardWebhooksSecret.slice(6), 'base64').toString('hex')).toBe(
      created.body.secret,
    );
    const list = await call(svc.url, 'GET', '/v1/webhooks', { key });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      data: [
        {
          id: created.body.id,
          url: HOOK,
          events: ['attestation.created', 'batch.completed'],
          createdAt: created.body.createdAt,
          rotation: null,
        },
      ],
    });
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
    expect(await subscriptionRow(created.body.id).execute()).toHaveLength(1);
    const deleted = await call(svc.url, 'DELETE', `/v1/webhooks/${created.body.id}`, { key });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect((await call(svc.url, 'GET', '/v1/webhooks', { key })).body).toEqual({ data: [] });
    expect((await call(svc.url, 'DELETE', `/v1/webhooks/${created.body.id}`, { key })).status).toBe(404);
    const audit = await svc.db
      .selectFrom('auditEntries')
      .select('action')
      .where('resource', '=', `webhook:${created.body.id}`)
      .orderBy('id')
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['webhook.subscribed', 'webhook.deleted']);
  });

  it('gives two subscriptions two different secrets, and replays an Idempotency-Key without a second subscription', async () => {
    const { key } = await svc.createKey();
    const a = await call(svc.url, 'POST', '/v1/webhooks', {
      key,
      body: { url: `${HOOK}/a`, events: ['attestation.revoked'] },
    });
    const b = await call(svc.url, 'POST', '/v1/webhooks', {
      key,
      body: { url: `${HOOK}/b`, events: ['attestation.revoked'] },
    });
    expect(a.body.secret).not.toBe(b.body.secret);
    const headers = { 'idempotency-key': 'subscribe-once' };
    const first = await call(svc.url, 'POST', '/v1/webhooks', {
      key,
      headers,
      body: { url: HOOK, events: ['batch.completed'] },
    });
    const again = await call(svc.url, 'POST', '/v1/webhooks', {
      key,
      headers,
      body: { url: HOOK, events: ['batch.completed'] },
    });
    expect(again.body).toEqual(first.body);
    expect((await call(svc.url, 'GET', '/v1/webhooks', { key })).body.data).toHaveLength(3);
  });

  it.each([
    [{ url: HOOK, events: ['attestation.deleted'] }, 'events.0'],
    [{ url: HOOK, events: [] }, 'events'],
    [{ url: 'ftp://hooks.example/x', events: ['attestation.created'] }, 'url'],
    [{ url: 'not a url', events: ['attestation.created'] }, 'url'],
    [{ url: HOOK }, 'events'],
    [{ url: HOOK, events: ['attestation.created'], secret: 'mine' }, ''],
  ])('400 VALIDATION_FAILED for %j', async (body, path) => {
    const { key } = await svc.createKey();
    const res = await call(svc.url, 'POST', '/v1/webhooks', { key, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.any(String),
      details: { errors: expect.arrayContaining([expect.objectContaining({ path })]) },
    });
    expect((await call(svc.url, 'GET', '/v1/webhooks', { key })).body.data).toEqual([]);
  });

  it.each([
    ['http://127.0.0.1:8080/hook', 'must use https'],
    ['https://127.0.0.1:8443/hook', '127.0.0.1'],
    ['http://169.254.169.254/latest/meta-data', 'must use https'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254'],
    ['http://[::1]/', 'must use https'],
    ['https://[::1]/hook', '::1'],
    ['https://[::ffff:10.0.0.1]/hook', '::ffff:a00:1'],
    ['https://localhost/hook', 'could not be resolved'],
    ['https://internal.example/hook', '10.0.0.1'],
    ['https://rebind.example/hook', '192.168.1.10'],
    ['https://metadata.example/hook', 'fd00:ec2::254'],
    ['https://user:pass@hooks.example/hook', 'credentials'],
    ['https://hooks.example:22/hook', 'port 22 is not allowed: use 443 or 1024–65535'],
    ['https://hooks.example:80/hook', 'port 80 is not allowed'],
    ['https://[::127.0.0.1]/', 'carrying 127.0.0.1'],
    ['https://[::ffff:0:127.0.0.1]/', 'carrying 127.0.0.1'],
    ['https://[64:ff9b:1::7f00:1]/', 'carrying 127.0.0.1'],
    ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'carrying 127.0.0.1'],
  ])('refuses %s with 400 when private URLs are not allowed', async (url, reason) => {
    const { key } = await svc.createKey();
    const res = await call(svc.url, 'POST', '/v1/webhooks', { key, body: { url, events: ['attestation.created'] } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.details.errors[0]).toMatchObject({ path: 'url', message: expect.stringContaining(reason) });
  });

  it(`holds an account to ${MAX_SUBSCRIPTIONS} live subscriptions`, async () => {
    const { key } = await svc.createKey();
    for (let i = 0; i < MAX_SUBSCRIPTIONS; i++)
      expect(
        (
          await call(svc.url, 'POST', '/v1/webhooks', {
            key,
            body: { url: `${HOOK}/${i}`, events: ['attestation.created'] },
          })
        ).status,
      ).toBe(201);
    const over = await call(svc.url, 'POST', '/v1/webhooks', {
      key,
      body: { url: HOOK, events: ['attestation.created'] },
    });
    expect(over).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });

  it("isolates accounts: B can neither list, delete nor read the deliveries of A's subscription", async () => {
    const a = await svc.createKey();
    const b = await svc.createKey();
    const created = await call(svc.url, 'POST', '/v1/webhooks', {
      key: a.key,
      body: { url: HOOK, events: ['attestation.created'] },
    });
    expect((await call(svc.url, 'GET', '/v1/webhooks', { key: b.key })).body).toEqual({ data: [] });
    const del = await call(svc.url, 'DELETE', `/v1/webhooks/${created.body.id}`, { key: b.key });
    expect(del).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    const deliveries = await call(svc.url, 'GET', `/v1/webhooks/${created.body.id}/deliveries`, { key: b.key });
    expect(deliveries).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    // still A's, untouched
    expect((await call(svc.url, 'GET', '/v1/webhooks', { key: a.key })).body.data).toHaveLength(1);
    expect((await call(svc.url, 'GET', `/v1/webhooks/${created.body.id}/deliveries`, { key: a.key })).body).toEqual({
      data: [],
      nextCursor: null,
    });
  });

  it('answers 404 for an id that is not a subscription, and 400 for a cursor it did not issue', async () => {
    const { key } = await svc.createKey();
    for (const id of ['wh_1', '00000000-0000-0000-0000-000000000000', "x'; DROP TABLE webhook_subscriptions; --"]) {
      expect((await call(svc.url, 'DELETE', `/v1/webhooks/${encodeURIComponent(id)}`, { key })).status).toBe(404);
    }
    const created = await call(svc.url, 'POST', '/v1/webhooks', {
      key,
      body: { url: HOOK, events: ['attestation.created'] },
    });
    const bad = await call(svc.url, 'GET', `/v1/webhooks/${created.body.id}/deliveries?cursor=bogus`, { key });
    expect(bad).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });

  describe('one URL at most once per account', () => {
    it('answers 409 ALREADY_EXISTS with the existing id for the same URL, written differently or with other events', async () => {
      const { key } = await svc.createKey();
      const first = await call(svc.url, 'POST', '/v1/webhooks', {
        key,
        body: { url: HOOK, events: ['attestation.created'] },
      });
      expect(first.status).toBe(201);
      for (const url of [HOOK, 'https://HOOKS.example:443/attestations', 'https://hooks.example/./attestations']) {
        const again = await call(svc.url, 'POST', '/v1/webhooks', { key, body: { url, events: ['batch.completed'] } });
        expect(again).toMatchObject({ status: 409, body: { code: 'ALREADY_EXISTS', details: { id: first.body.id } } });
        expect(again.body.message).toMatch(/reuse it, or delete it first/);
        expect(JSON.stringify(again.body)).not.toContain(first.body.secret);
      }
      expect((await call(svc.url, 'GET', '/v1/webhooks', { key })).body.data).toEqual([
        expect.objectContaining({ id: first.body.id }),
      ]);
      // a different path, query or port is another receiver
      for (const url of [`${HOOK}/v2`, `${HOOK}?env=staging`, 'https://hooks.example:8443/attestations']) {
        expect(
          (await call(svc.url, 'POST', '/v1/webhooks', { key, body: { url, events: ['attestation.created'] } })).status,
        ).toBe(201);
      }
    });

    it('stores and answers the URL as normalized, so the list shows what is compared', async () => {
      const { key } = await svc.createKey();
      const created = await call(svc.url, 'POST', '/v1/webhooks', {
        key,
        body: { url: 'https://HOOKS.example:443', events: ['attestation.created'] },
      });
      expect(created.body.url).toBe('https://hooks.example/');
      expect((await call(svc.url, 'GET', '/v1/webhooks', { key })).body.data[0].url).toBe('https://hooks.example/');
    });

    it('lets another account use the same URL, and the same account again once the first is deleted', async () => {
      const a = await svc.createKey();
      const b = await svc.createKey();
      const first = await call(svc.url, 'POST', '/v1/webhooks', {
        key: a.key,
        body: { url: HOOK, events: ['attestation.created'] },
      });
      expect(
        (
          await call(svc.url, 'POST', '/v1/webhooks', {
            key: b.key,
            body: { url: HOOK, events: ['attestation.created'] },
          })
        ).status,
      ).toBe(201);
      expect((await call(svc.url, 'DELETE', `/v1/webhooks/${first.body.id}`, { key: a.key })).status).toBe(204);
      expect(
        (
          await call(svc.url, 'POST', '/v1/webhooks', {
            key: a.key,
            body: { url: HOOK, events: ['attestation.created'] },
          })
        ).status,
      ).toBe(201);
    });

    it('makes one of two concurrent subscribes to one URL, and answers the other 409', async () => {
      const { key } = await svc.createKey();
      const body = { url: HOOK, events: ['attestation.created'] };
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => call(svc.url, 'POST', '/v1/webhooks', { key, body })),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
      const made = answers.find((r) => r.status === 201)!;
      for (const r of answers.filter((x) => x.status === 409)) expect(r.body.details).toEqual({ id: made.body.id });
    });

    it('is held by the database too: a second live row for the same account and URL is refused', async () => {
      const { key } = await svc.createKey();
      const created = await call(svc.url, 'POST', '/v1/webhooks', {
        key,
        body: { url: HOOK, events: ['attestation.created'] },
      });
      const original = await subscriptionRow(created.body.id).executeTakeFirstOrThrow();
      const copy = () =>
        svc.db
          .insertInto('webhookSubscriptions')
          .values({ ...original, id: randomUUID() })
          .execute();
      expect(isUrlTaken(await copy().catch((e: unknown) => e))).toBe(true);
      const deletedAt = new Date();
      await svc.db.updateTable('webhookSubscriptions').set({ deletedAt }).where('id', '=', created.body.id).execute();
      await copy(); // deleted rows do not count
    });
  });
});

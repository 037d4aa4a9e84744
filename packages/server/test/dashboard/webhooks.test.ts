import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../../client/src/webhooks.ts';
import { auditEntriesOf } from '../support/db.ts';
import { startReceiver, type Answer, type Receiver } from '../support/receiver.ts';
import { call, type TestService } from '../support/service.ts';
import { createMember, startDashboardService, trpc, type TestMember } from './support.ts';

describe('dashboard webhooks', () => {
  let service: TestService;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    service = await startDashboardService({ worker: true, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    await Promise.all(receivers.map((r) => r.close()));
  });

  const receiver = async (answer?: (request: unknown, i: number) => Answer) => {
    const started = await startReceiver(answer);
    receivers.push(started);
    return started;
  };
  const mutate = (member: TestMember, path: string, input: unknown, headers?: Record<string, string>) =>
    trpc(service, `dashboard.webhooks.${path}`, {
      cookie: member.cookie,
      accountId: member.accountId,
      mutation: true,
      input,
      headers,
    });
  const query = (member: TestMember, path: string, input?: unknown) =>
    trpc(service, `dashboard.webhooks.${path}`, { cookie: member.cookie, accountId: member.accountId, input });
  const subscribe = async (member: TestMember, url: string) => {
    const res = await mutate(member, 'create', { url, events: ['attestation.created'] });
    expect(res.status).toBe(200);
    return res.body.result.data as { id: string; url: string; secret: string; createdAt: string };
  };
  /** An off-chain attestation made through REST by a key the member mints in the dashboard. */
  const keyOf = async (member: TestMember) => {
    const res = await trpc(service, 'dashboard.keys.create', {
      cookie: member.cookie,
      accountId: member.accountId,
      mutation: true,
      input: { name: 'hooks', tier: 'free' },
    });
    return res.body.result.data.key as string;
  };
  const attest = async (key: string) => {
    const res = await call(service.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', content: `c-${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
    });
    expect(res.status).toBe(201);
  };
  /** The subscription's deliveries once `count` of them are done (the worker records attempts asynchronously). */
  const settled = async (member: TestMember, subscriptionId: string, count: number) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const res = await query(member, 'deliveries', { subscriptionId, limit: 100 });
      expect(res.status).toBe(200);
      const items = res.body.result.data.data as Array<Record<string, any>>;
      if (items.length === count && items.every((d) => d.state !== 'pending')) return items;
      if (Date.now() > deadline) throw new Error(`deliveries not settled: ${JSON.stringify(items)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const audit = (accountId: string, action: string) => auditEntriesOf(service.db, accountId, action);

  it('subscribes for a developer (the secret once), delivers signed events, shows each attempt', async () => {
    const dev = await createMember(service, 'developer');
    const hook = await receiver(() => ({ status: 200, body: 'thanks' }));
    const created = await subscribe(dev, hook.url);
    expect(created).toMatchObject({ url: hook.url, events: ['attestation.created'] });
    expect(created.secret).toMatch(/^[0-9a-f]{64}$/);

    const listed = await query(dev, 'list');
    expect(listed.body.result.data).toEqual([
      { id: created.id, url: hook.url, events: ['attestation.created'], createdAt: created.createdAt, rotation: null },
    ]);
    const [entry] = await audit(dev.accountId, 'webhook.subscribed');
    expect(entry!.actorKeyPrefix).toBeNull();
    expect(entry!.details).toMatchObject({ url: hook.url, actor: { type: 'member', email: dev.email } });

    await attest(await keyOf(dev));
    const [request] = await hook.waitFor(1);
    const signature = request!.headers['x-service-signature'] as string;
    expect(verifyWebhookSignature(request!.body, signature, created.secret)).toBe(true);

    const [delivery] = await settled(dev, created.id, 1);
    expect(delivery).toMatchObject({
      id: request!.headers['x-service-delivery'],
      event: { id: expect.any(String), type: 'attestation.created' },
      state: 'completed',
      attempts: 1,
      completedAt: expect.any(String),
      nextAttemptAt: null,
      attemptLog: [{ number: 1, status: 200, error: null, responseBody: 'thanks', durationMs: expect.any(Number) }],
    });
  });

  it('filters deliveries by state and pages them by cursor', async () => {
    const dev = await createMember(service, 'developer');
    // the second event's delivery fails once and is retried later (the first retry waits longer than this test)
    const hook = await receiver((_request, i) => (i === 1 ? { status: 500, body: 'boom' } : { status: 200 }));
    const { id } = await subscribe(dev, hook.url);
    const key = await keyOf(dev);
    for (let i = 0; i < 3; i++) {
      await attest(key);
      await hook.waitFor(i + 1);
    }
    const deadline = Date.now() + 15_000;
    let failing: Array<Record<string, any>> = [];
    while (failing.length === 0 && Date.now() < deadline) {
      failing = (await query(dev, 'deliveries', { subscriptionId: id, state: 'pending' })).body.result.data.data;
      failing = failing.filter((d) => d.attemptLog.length === 1);
      if (failing.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(failing).toHaveLength(1);
    expect(failing[0]!.attemptLog[0]).toMatchObject({ status: 500, responseBody: 'boom' });
    expect(failing[0]!.nextAttemptAt).toEqual(expect.any(String));

    const completed = async (cursor?: string, limit = 1) =>
      (await query(dev, 'deliveries', { subscriptionId: id, state: 'completed', limit, cursor })).body.result.data;
    // the receiver has answered all three, but a delivery's state is written after its answer: wait for both
    while ((await completed(undefined, 100)).data.length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    const first = await completed();
    expect(first.data).toHaveLength(1);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await completed(first.nextCursor);
    expect(second.data).toHaveLength(1);
    expect(second.data[0].id).not.toBe(first.data[0].id);
    expect(second.nextCursor).toBeNull();
    expect((await query(dev, 'deliveries', { subscriptionId: id, state: 'dead' })).body.result.data.data).toEqual([]);
    const bad = await query(dev, 'deliveries', { subscriptionId: id, cursor: 'not-a-cursor' });
    expect(bad.status).toBe(400);
  });

  it("applies the REST API's rules: the URL guard, one URL once per account", async () => {
    const dev = await createMember(service, 'developer');
    const guarded = await mutate(dev, 'create', {
      url: 'http://user:secret@127.0.0.1:9999/hook',
      events: ['attestation.created'],
    });
    expect(guarded.status).toBe(400);
    expect(guarded.body.error.data.code).toBe('VALIDATION_FAILED');
    const hook = await receiver();
    const { id } = await subscribe(dev, hook.url);
    const again = await mutate(dev, 'create', { url: hook.url, events: ['attestation.revoked'] });
    expect(again.status).toBe(409);
    expect(again.body.error.data).toMatchObject({ code: 'ALREADY_EXISTS', details: { id } });
  });

  it('deletes for a developer, audited with the member', async () => {
    const dev = await createMember(service, 'developer');
    const { id } = await subscribe(dev, (await receiver()).url);
    const res = await mutate(dev, 'delete', { id });
    expect(res.status).toBe(200);
    expect(res.body.result.data).toEqual({ id });
    expect((await query(dev, 'list')).body.result.data).toEqual([]);
    const [entry] = await audit(dev.accountId, 'webhook.deleted');
    expect(entry!.details).toMatchObject({ actor: { email: dev.email, role: 'developer' } });
    expect((await mutate(dev, 'delete', { id })).status).toBe(404);
  });

  it('lets a viewer read but not create or delete (403); nothing changes', async () => {
    const owner = await createMember(service, 'owner');
    const viewer = await createMember(service, 'viewer', owner.accountId);
    const { id } = await subscribe(owner, (await receiver()).url);
    const created = await mutate(viewer, 'create', { url: (await receiver()).url, events: ['attestation.created'] });
    const deleted = await mutate(viewer, 'delete', { id });
    for (const res of [created, deleted]) {
      expect(res.status).toBe(403);
      expect(res.body.error.data.code).toBe('FORBIDDEN');
    }
    expect((await query(viewer, 'list')).body.result.data.map((s: { id: string }) => s.id)).toEqual([id]);
    expect((await query(viewer, 'deliveries', { subscriptionId: id })).status).toBe(200);
  });

  it("gives a member of account A nothing of B's subscriptions: NOT_FOUND, and B's stays", async () => {
    const a = await createMember(service, 'owner');
    const b = await createMember(service, 'owner');
    const { id } = await subscribe(b, (await receiver()).url);
    const deleted = await mutate(a, 'delete', { id });
    const read = await query(a, 'deliveries', { subscriptionId: id });
    for (const res of [deleted, read]) {
      expect(res.status).toBe(404);
      expect(res.body.error.data.code).toBe('NOT_FOUND');
    }
    expect((await query(a, 'list')).body.result.data).toEqual([]);
    expect((await query(b, 'list')).body.result.data.map((s: { id: string }) => s.id)).toEqual([id]);
    expect(await audit(b.accountId, 'webhook.deleted')).toEqual([]);
  });

  it('rotates the secret for a developer (shown once, audited with the member) and sends a signed test event', async () => {
    const dev = await createMember(service, 'developer');
    const hook = await receiver();
    const created = await subscribe(dev, hook.url);
    const rotated = await mutate(dev, 'rotateSecret', { id: created.id, previousSecretTtlHours: 2 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.result.data as { secret: string; rotation: { previousSecretExpiresAt: string } };
    expect(fresh.secret).toMatch(/^[0-9a-f]{64}$/);
    const [listed] = (await query(dev, 'list')).body.result.data;
    expect(listed.rotation).toEqual(fresh.rotation);
    expect(JSON.stringify(listed)).not.toContain(fresh.secret);
    const [entry] = await audit(dev.accountId, 'webhook.secret_rotated');
    expect(entry!.details).toMatchObject({ actor: { email: dev.email }, previousSecretExpiresAt: expect.any(String) });
    expect(JSON.stringify(entry!.details)).not.toContain(fresh.secret);

    const sent = await mutate(dev, 'sendTest', { id: created.id });
    expect(sent.status).toBe(200);
    const [request] = await hook.waitFor(1);
    expect(request!.headers['webhook-id']).toBe(sent.body.result.data.deliveryId);
    // inside the window X-Service-Signature keeps the previous secret
    expect(
      verifyWebhookSignature(request!.body, request!.headers['x-service-signature'] as string, created.secret),
    ).toBe(true);
    const [delivery] = await settled(dev, created.id, 1);
    expect(delivery!.event.type).toBe('webhook.test');
  });

  it('lets a viewer neither rotate nor send a test event, and another account finds nothing', async () => {
    const owner = await createMember(service, 'owner');
    const viewer = await createMember(service, 'viewer', owner.accountId);
    const stranger = await createMember(service, 'owner');
    const hook = await receiver();
    const { id } = await subscribe(owner, hook.url);
    const stored = () =>
      service.db.selectFrom('webhookSubscriptions').select(['secret', 'previousSecret']).where('id', '=', id).execute();
    const before = await stored();
    for (const res of [await mutate(viewer, 'rotateSecret', { id }), await mutate(viewer, 'sendTest', { id })])
      expect(res.status).toBe(403);
    for (const res of [await mutate(stranger, 'rotateSecret', { id }), await mutate(stranger, 'sendTest', { id })]) {
      expect(res.status).toBe(404);
      expect(res.body.error.data.code).toBe('NOT_FOUND');
    }
    expect(await stored()).toEqual(before);
    expect(before[0]!.previousSecret).toBeNull();
    expect(hook.received).toHaveLength(0);
  });

  it('refuses a cross-site create or delete carrying a valid cookie (403)', async () => {
    const owner = await createMember(service, 'owner');
    const { id } = await subscribe(owner, (await receiver()).url);
    const crossSite: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'https://evil.example' },
    ];
    for (const headers of crossSite) {
      const url = (await receiver()).url;
      expect((await mutate(owner, 'create', { url, events: ['attestation.created'] }, headers)).status).toBe(403);
      expect((await mutate(owner, 'delete', { id }, headers)).status).toBe(403);
    }
    expect((await query(owner, 'list')).body.result.data.map((s: { id: string }) => s.id)).toEqual([id]);
  });
});

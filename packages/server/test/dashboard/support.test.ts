import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertDelivery, insertSubscription, lastAuditEntry } from '../support/db.ts';
import { call, type TestService } from '../support/service.ts';
import { createMember, createSupportUser, startDashboardService, trpc, type TestMember } from './support.ts';

let service: TestService;
let support: { userId: string; email: string; cookie: string };
beforeAll(async () => {
  service = await startDashboardService();
  support = await createSupportUser(service);
});
afterAll(() => service.stop());

const PROCEDURES = [
  ['find', 'query'],
  ['account', 'query'],
  ['setPlan', 'mutation'],
  ['revokeKey', 'mutation'],
  ['replayDelivery', 'mutation'],
] as const;

const supportCall = (name: string, input: unknown, cookie = support.cookie) =>
  trpc(service, `dashboard.support.${name}`, {
    cookie,
    input,
    mutation: PROCEDURES.find(([n]) => n === name)![1] === 'mutation',
  });

const lastAudit = (accountId: string) => lastAuditEntry(service.db, accountId);

const supportActor = () => ({ type: 'support', email: support.email, userId: support.userId, role: 'support' });

/** A dead delivery of a live subscription of the account. */
async function deadDelivery(accountId: string): Promise<string> {
  const subscriptionId = await insertSubscription(service.db, accountId);
  return insertDelivery(service.db, { accountId, subscriptionId, state: 'dead', attempts: 5 });
}

describe('dashboard.support', () => {
  it('is the support team: accepting a support invitation sets it, and session.me says so', async () => {
    const me = await trpc(service, 'dashboard.session.me', { cookie: support.cookie });
    expect(me.body.result.data).toMatchObject({ support: true, memberships: [] });
  });

  it('refuses every support procedure to a user not on the support team, even an owner (403)', async () => {
    const owner = await createMember(service, 'owner');
    const { prefix } = await service.services.keys.create({ tier: 'free', account: owner.accountName });
    const delivery = await deadDelivery(owner.accountId);
    const inputs: Record<string, unknown> = {
      find: { query: owner.accountName },
      account: { accountId: owner.accountId },
      setPlan: { accountId: owner.accountId, plan: 'enterprise' },
      revokeKey: { accountId: owner.accountId, prefix },
      replayDelivery: { accountId: owner.accountId, deliveryId: delivery },
    };
    for (const [name] of PROCEDURES) {
      const res = await supportCall(name, inputs[name], owner.cookie);
      expect(res.status, name).toBe(403);
      expect(res.body.error.data.code).toBe('FORBIDDEN');
    }
    const [row] = await service.db.selectFrom('accounts').select('plan').where('id', '=', owner.accountId).execute();
    expect(row!.plan).toBe('free');
    const [key] = await service.db.selectFrom('apiKeys').select('revokedAt').where('prefix', '=', prefix).execute();
    expect(key).toEqual({ revokedAt: null });
    const [d] = await service.db.selectFrom('webhookDeliveries').select('state').where('id', '=', delivery).execute();
    expect(d).toEqual({ state: 'dead' });
  });

  it('finds an account by a part of its name, a key prefix or an attestation uid', async () => {
    const owner = await createMember(service, 'owner');
    const { key, prefix } = await service.services.keys.create({ tier: 'pro', account: owner.accountName });
    const created = await call(service.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', content: `support ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
    });
    expect(created.status).toBe(201);
    const expected = [
      { accountId: owner.accountId, name: owner.accountName, plan: 'free', createdAt: expect.any(String) },
    ];
    for (const query of [owner.accountName.slice(5).toUpperCase(), prefix, created.body.uid]) {
      const found = await supportCall('find', { query });
      expect(found.status).toBe(200);
      expect(found.body.result.data).toEqual(expected);
    }
    expect((await supportCall('find', { query: 'no-account-is-named-like-this' })).body.result.data).toEqual([]);
  });

  it("shows an account's keys with this month's use against their quotas, and its dead deliveries", async () => {
    const owner = await createMember(service, 'owner');
    const free = await service.services.keys.create({ tier: 'free', account: owner.accountName, name: 'ci' });
    const enterprise = await service.services.keys.create({ tier: 'enterprise', account: owner.accountName });
    await service.chargeQuota(free.prefix, 7);
    const delivery = await deadDelivery(owner.accountId);
    const res = await supportCall('account', { accountId: owner.accountId });
    expect(res.status).toBe(200);
    expect(res.body.result.data).toEqual({
      accountId: owner.accountId,
      name: owner.accountName,
      plan: 'free',
      createdAt: expect.any(String),
      usage: [
        { prefix: free.prefix, name: 'ci', tier: 'free', used: 7, quota: 20, revokedAt: null },
        { prefix: enterprise.prefix, name: null, tier: 'enterprise', used: 0, quota: null, revokedAt: null },
      ],
      deadDeliveries: [
        {
          id: delivery,
          subscriptionUrl: expect.stringMatching(/^https:\/\/hooks\.example\.com\//),
          event: 'attestation.created',
          attempts: 5,
          createdAt: expect.any(String),
        },
      ],
    });
    expect((await supportCall('account', { accountId: randomUUID() })).status).toBe(404);
  });

  it("sets an account's plan, audited in that account with the support member as actor", async () => {
    const owner = await createMember(service, 'owner');
    const res = await supportCall('setPlan', { accountId: owner.accountId, plan: 'pro' });
    expect(res.status).toBe(200);
    const me = await trpc(service, 'dashboard.session.me', { cookie: owner.cookie });
    expect(me.body.result.data.memberships[0].plan).toBe('pro');
    expect(await lastAudit(owner.accountId)).toEqual({
      action: 'account.plan_changed',
      details: { from: 'free', to: 'pro', via: 'dashboard', actor: supportActor() },
    });
    expect((await supportCall('setPlan', { accountId: randomUUID(), plan: 'pro' })).status).toBe(404);
  });

  it('revokes a key of the account named (its next call is 401 API_KEY_REVOKED), never of another', async () => {
    const a = await createMember(service, 'owner');
    const b: TestMember = await createMember(service, 'owner');
    const keyA = await service.services.keys.create({ tier: 'free', account: a.accountName });
    const body = { type: 'human', content: 'revoked by support', contentType: 'text/plain', mode: 'offchain' };

    const wrong = await supportCall('revokeKey', { accountId: b.accountId, prefix: keyA.prefix });
    expect(wrong.status).toBe(404);
    expect((await call(service.url, 'POST', '/v1/attestations', { key: keyA.key, body })).status).toBe(201);

    const res = await supportCall('revokeKey', { accountId: a.accountId, prefix: keyA.prefix });
    expect(res.status).toBe(200);
    expect(res.body.result.data).toEqual({ prefix: keyA.prefix, revokedAt: expect.any(String) });
    // read before the refused call below: its own entry (auth.failed) is appended after its answer
    expect(await lastAudit(a.accountId)).toMatchObject({
      action: 'api_key.revoked',
      details: { via: 'dashboard', actor: supportActor() },
    });
    const after = await call(service.url, 'POST', '/v1/attestations', { key: keyA.key, body });
    expect(after).toMatchObject({ status: 401, body: { code: 'API_KEY_REVOKED' } });
  });

  it('replays a dead delivery of the account named, once, audited; never one of another account', async () => {
    const a = await createMember(service, 'owner');
    const b = await createMember(service, 'owner');
    const delivery = await deadDelivery(a.accountId);

    expect((await supportCall('replayDelivery', { accountId: b.accountId, deliveryId: delivery })).status).toBe(404);
    const res = await supportCall('replayDelivery', { accountId: a.accountId, deliveryId: delivery });
    expect(res.status).toBe(200);
    expect(res.body.result.data).toEqual({ id: delivery, state: 'pending' });
    const [row] = await service.db
      .selectFrom('webhookDeliveries')
      .select(['state', 'replays'])
      .where('id', '=', delivery)
      .execute();
    expect(row).toEqual({ state: 'pending', replays: 1 });
    expect(await lastAudit(a.accountId)).toMatchObject({
      action: 'webhook_delivery.replayed',
      details: { by: 'dashboard', actor: supportActor() },
    });

    const again = await supportCall('replayDelivery', { accountId: a.accountId, deliveryId: delivery });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/only dead deliveries/);
    expect((await lastAudit(b.accountId))?.action).not.toBe('webhook_delivery.replayed');
  });
});

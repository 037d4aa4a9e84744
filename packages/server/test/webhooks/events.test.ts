import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, startTestService, type TestService } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

let svc: TestService;
const receivers: Receiver[] = [];

beforeAll(async () => {
  svc = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

type Event = { id: string; type: string; createdAt: string; data: Record<string, unknown> };

/** A pro account subscribed to every kind; `events()` reads what its receiver got. */
async function account(events = ['attestation.created', 'attestation.revoked', 'batch.completed']) {
  const { key } = await svc.createKey('pro');
  const receiver = await startReceiver();
  receivers.push(receiver);
  const subscribed = await call(svc.url, 'POST', '/v1/webhooks', { key, body: { url: receiver.url, events } });
  expect(subscribed.status).toBe(201);
  const received = async (count: number) =>
    (await receiver.waitFor(count, 30_000)).map((r) => JSON.parse(r.body) as Event);
  return { key, receiver, received, subscriptionId: subscribed.body.id as string };
}

/** The subscription's deliveries, once none has an attempt still to come (none pending). */
const doneDeliveries = (subscriptionId: string) =>
  waitFor(
    async () => {
      const rows = await svc.db
        .selectFrom('webhookDeliveries')
        .select('state')
        .where('subscriptionId', '=', subscriptionId)
        .execute();
      return rows.every((r) => r.state !== 'pending') && rows;
    },
    { timeout: 30_000, what: 'the deliveries done' },
  );

const item = (mode: 'onchain' | 'offchain') => ({
  type: 'ai',
  content: `event item ${Math.random()}`,
  contentType: 'text/plain',
  mode,
});

describe('events', () => {
  it('an on-chain create emits attestation.created once it is mined, with its transaction', async () => {
    const { key, received } = await account();
    const created = await call(svc.url, 'POST', '/v1/attestations', { key, body: item('onchain') });
    expect(created.status).toBe(201);
    const [event] = await received(1);
    expect(event).toMatchObject({
      type: 'attestation.created',
      data: {
        uid: created.body.uid,
        mode: 'onchain',
        txHash: created.body.txHash,
        blockNumber: expect.any(Number),
        type: 'ai',
      },
    });
  }, 60_000);

  it('a batch emits one attestation.created per item and one batch.completed with its counts, uids and txHash', async () => {
    const { key, receiver, received, subscriptionId } = await account();
    const res = await call(svc.url, 'POST', '/v1/attestations/batch', {
      key,
      body: { attestations: [item('offchain'), item('onchain'), item('onchain'), item('offchain')] },
    });
    expect(res.status).toBe(201);
    const events = await received(5);
    // every delivery done: no event or attempt is still to come
    expect(await doneDeliveries(subscriptionId)).toHaveLength(5);
    expect(receiver.received).toHaveLength(5);
    const uids = res.body.attestations.map((a: { uid: string }) => a.uid);
    expect(
      events
        .filter((e) => e.type === 'attestation.created')
        .map((e) => e.data.uid)
        .sort(),
    ).toEqual([...uids].sort());
    expect(events.filter((e) => e.type === 'batch.completed').map((e) => e.data)).toEqual([
      { batchId: res.body.batchId, counts: { total: 4, onchain: 2, offchain: 2 }, uids, txHash: res.body.txHash },
    ]);
  }, 60_000);

  it('an off-chain batch completes at once: batch.completed has txHash null', async () => {
    const { key, received } = await account(['batch.completed']);
    const res = await call(svc.url, 'POST', '/v1/attestations/batch', {
      key,
      body: { attestations: [item('offchain'), item('offchain')] },
    });
    const [event] = await received(1);
    expect(event).toMatchObject({
      type: 'batch.completed',
      data: { batchId: res.body.batchId, counts: { total: 2, onchain: 0, offchain: 2 }, txHash: null },
    });
  });

  it('a revoke emits attestation.revoked with the revoked record, only to subscribers of that kind', async () => {
    const { key, receiver, received } = await account(['attestation.revoked']);
    const created = await call(svc.url, 'POST', '/v1/attestations', { key, body: item('offchain') });
    const revoked = await call(svc.url, 'POST', `/v1/attestations/${created.body.uid}/revoke`, { key });
    expect(revoked.status).toBe(200);
    const [event] = await received(1);
    expect(event).toMatchObject({
      type: 'attestation.revoked',
      data: {
        uid: created.body.uid,
        revoked: true,
        revokedAt: revoked.body.revokedAt,
        revocationTxHash: revoked.body.txHash,
      },
    });
    expect(receiver.received[0]!.headers['x-service-event']).toBe('attestation.revoked');
  }, 60_000);

  it("sends one account's events to that account's subscriptions only, and each subscription gets its own delivery id", async () => {
    const a = await account(['attestation.created']);
    const second = await startReceiver();
    receivers.push(second);
    await call(svc.url, 'POST', '/v1/webhooks', {
      key: a.key,
      body: { url: second.url, events: ['attestation.created'] },
    });
    const b = await account(['attestation.created']);
    await call(svc.url, 'POST', '/v1/attestations', { key: a.key, body: item('offchain') });
    const [first] = await a.receiver.waitFor(1);
    const [other] = await second.waitFor(1);
    expect(JSON.parse(first!.body).id).toBe(JSON.parse(other!.body).id);
    expect(first!.headers['x-service-delivery']).not.toBe(other!.headers['x-service-delivery']);
    // the deliveries are made in the transaction of the change: b's subscription got none, so none is to come
    expect(await doneDeliveries(b.subscriptionId)).toEqual([]);
    expect(b.receiver.received).toHaveLength(0);
  });

  it('stores the event, its delivery and its job in the transaction of the change', async () => {
    const { key, received } = await account(['attestation.created']);
    const created = await call(svc.url, 'POST', '/v1/attestations', { key, body: item('offchain') });
    await received(1);
    const attestation = await svc.db
      .selectFrom('attestations')
      .select(['accountId', 'createdAt'])
      .where('uid', '=', created.body.uid)
      .executeTakeFirstOrThrow();
    const events = await svc.db
      .selectFrom('webhookEvents')
      .select(['body', 'createdAt'])
      .where('accountId', '=', attestation.accountId)
      .execute();
    const event = events.find((e) => (JSON.parse(e.body) as { data: { uid: string } }).data.uid === created.body.uid);
    expect(event!.createdAt.getTime()).toBe(attestation.createdAt.getTime());
  });
});

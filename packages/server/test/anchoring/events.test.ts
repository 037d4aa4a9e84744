import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleAnchor } from '../../src/anchoring/schedule-store.ts';
import { createAnchorer } from '../../src/anchoring/anchorer.ts';
import { assignLeaves, insertAnchor } from '../../src/anchoring/store.ts';
import { inTransaction } from '../../src/db/database.ts';
import { until } from '../support/anvil.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
const receivers: Receiver[] = [];

beforeAll(async () => {
  svc = await startTestService({ env: { ANCHOR_INTERVAL: '1h', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

/** An account with `count` off-chain attestations, subscribed to `events` (none: no subscription). */
async function account(count: number, events: string[] = []) {
  const { key } = await svc.createKey('pro');
  const receiver = await startReceiver();
  receivers.push(receiver);
  if (events.length > 0)
    expect((await call(svc.url, 'POST', '/v1/webhooks', { key, body: { url: receiver.url, events } })).status).toBe(
      201,
    );
  const uids: string[] = [];
  for (let i = 0; i < count; i++) {
    const body = { type: 'ai', content: `event ${i} ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' };
    uids.push((await call(svc.url, 'POST', '/v1/attestations', { key, body })).body.uid);
  }
  const anchored = () => receiver.received.filter((r) => r.headers['x-service-event'] === 'attestation.anchored');
  return { key, uids, receiver, anchored };
}

const anchorOf = async (uid: string) => (await call(svc.url, 'GET', `/v1/attestations/${uid}`)).body.anchor;

describe('an anchor, once mined', () => {
  it('sends each subscribed account one attestation.anchored with its own uids, and audits it once per account', async () => {
    const a = await account(3, ['attestation.anchored']);
    const b = await account(2, ['attestation.created']);
    const c = await account(1);
    await scheduleAnchor(svc.infrastructure.db, 0);
    const [delivery] = await a.receiver.waitFor(1, 60_000).then(() => a.anchored());
    const anchor = await anchorOf(a.uids[0]!);
    expect(JSON.parse(delivery!.body)).toMatchObject({
      type: 'attestation.anchored',
      data: {
        root: anchor.root,
        txHash: anchor.txHash,
        blockNumber: anchor.blockNumber,
        timestamp: anchor.timestamp,
        uids: a.uids,
      },
    });
    for (const uid of [...b.uids, ...c.uids]) expect((await anchorOf(uid)).root).toBe(anchor.root);
    await new Promise((r) => setTimeout(r, 1_000)); // on purpose: no second event to a and none to b, as time shows
    expect(a.anchored()).toHaveLength(1);
    expect(b.anchored()).toHaveLength(0);

    for (const { key, uids } of [a, b, c]) {
      const audit = await call(svc.url, 'GET', '/v1/audit/export?action=attestation.anchored', { key });
      expect(audit.body).toEqual([
        expect.objectContaining({
          action: 'attestation.anchored',
          actorKeyPrefix: null,
          resource: `anchor:${anchor.root}`,
          details: { root: anchor.root, txHash: anchor.txHash, blockNumber: anchor.blockNumber, count: uids.length },
        }),
      ]);
    }
  }, 90_000);
});

describe('one anchor per attestation', () => {
  it('is the database’s rule: an anchored attestation is taken by no second anchor, and two runs at once make one anchor', async () => {
    const { uids } = await account(5);
    const { db, pool, chain, clock, log } = svc.infrastructure;
    const anchorer = () => createAnchorer({ db, pool, clock, log, chain });
    // one run at a time: the other finds the lock taken, or, after, nothing left to anchor
    const runs = await Promise.all([anchorer().run(), anchorer().run()]);
    expect(runs.filter((r) => !r.busy && r.anchor)).toHaveLength(1);
    const rows = await svc.db.selectFrom('attestations').select(['id', 'anchorId']).where('uid', 'in', uids).execute();
    expect(new Set(rows.map((r) => r.anchorId)).size).toBe(1);
    expect(rows[0]!.anchorId).not.toBeNull();

    // a second anchor of the same rows, in a transaction rolled back so that the relayer never sees it
    const rollback = new Error('rolled back');
    await expect(
      inTransaction(db, async (tx) => {
        const second = await insertAnchor(tx, `0x${'ab'.repeat(32)}`, rows.length, new Date());
        const proofs = { bytes: Buffer.alloc(32 * rows.length), lengths: rows.map(() => 32) };
        expect(
          await assignLeaves(
            tx,
            second,
            rows.map((r) => r.id),
            proofs,
          ),
        ).toBe(0);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    await until(async () => ((await anchorOf(uids[0]!)) ? true : undefined), 60_000);
  }, 90_000);

  it('gives back the attestations of an anchor a crash left half-assigned, which is never sent, and anchors them anew', async () => {
    const { uids } = await account(4);
    const { db, pool, chain, clock, log } = svc.infrastructure;
    const rows = await svc.db.selectFrom('attestations').select('id').where('uid', 'in', uids).orderBy('id').execute();
    // what a worker killed between two of an anchor's transactions leaves: some rows given it, the anchor unassigned
    const stale = await insertAnchor(db, `0x${'cd'.repeat(32)}`, uids.length, new Date());
    const half = rows.slice(0, 2).map((r) => r.id);
    expect(await assignLeaves(db, stale, half, { bytes: Buffer.alloc(64), lengths: [32, 32] })).toBe(2);

    const run = await createAnchorer({ db, pool, clock, log, chain }).run();
    const made = run.busy ? undefined : run.anchor;
    expect(made?.leafCount).toBe(uids.length);
    expect(await svc.db.selectFrom('anchors').select('id').where('id', '=', stale).execute()).toEqual([]);
    await until(async () => ((await anchorOf(uids.at(-1)!)) ? true : undefined), 60_000);
    for (const uid of uids) expect((await anchorOf(uid)).root).toBe(made!.root);
  }, 90_000);
});

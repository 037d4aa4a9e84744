import { createHash } from 'node:crypto';
import { createPublicClient, createWalletClient, http, type Hex, type TransactionReceipt } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmedChanges, creationFailure } from '../../src/attestations/relay-confirm.ts';
import type { RelayItem } from '../../src/attestations/relay-store.ts';
import { attestationRelayWorks, attestedUids } from '../../src/attestations/relay-work.ts';
import { recordIntent } from '../../src/chain/journal-store.ts';
import type { RoundWork } from '../../src/chain/round.ts';
import { systemClock } from '../../src/clock.ts';
import { inTransaction } from '../../src/db/database.ts';
import { createLogger } from '../../src/log.ts';
import { until } from '../support/anvil.ts';
import { call, fundedKey, startTestService, type TestService } from '../support/service.ts';

// How the relayer's creation work judges a finished transaction (attestations/relay-work.ts) and what confirming it
// writes (attestations/relay-confirm.ts): the pure judgements first, then each outcome on a real service's database
// (no worker: the test is the relayer) with transactions mined on the run's anvil.
const hash = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;
const receipt = (status: 'success' | 'reverted') =>
  ({ status, transactionHash: hash(0xabc), logs: [] }) as unknown as TransactionReceipt;
const item = (id: string, fields: Partial<RelayItem> = {}) =>
  ({ id, accountId: 'acct', previousUid: null, offchainUid: null, ...fields }) as RelayItem;

describe('what a mined transaction of creations confirms', () => {
  it('none of its items when it reverted, or when EAS did not emit one Attested event per item', () => {
    expect(creationFailure(receipt('reverted'), 2, 0)).toBe(`transaction ${hash(0xabc)} reverted`);
    expect(creationFailure(receipt('success'), 2, 1)).toBe('expected 2 Attested events, found 1');
    expect(creationFailure(receipt('success'), 1, 2)).toBe('expected 1 Attested events, found 2');
    expect(creationFailure(receipt('success'), 3, 3)).toBeUndefined();
  });

  it('announces items mined the first time as creates or promotions, and after a reorg only a uid that changed', () => {
    const items = [
      item('1'),
      item('2', { offchainUid: hash(20) }),
      item('3', { previousUid: hash(30).toUpperCase().replace('0X', '0x') }),
      item('4', { previousUid: hash(40) }),
    ];
    const { created, promoted, replaced } = confirmedChanges(items, [hash(10), hash(21), hash(30), hash(41)]);
    expect(created).toEqual([{ ...items[0], uid: hash(10) }]);
    expect(promoted).toEqual([{ ...items[1], uid: hash(21) }]);
    expect(replaced).toEqual([{ ...items[3], uid: hash(41), previousUid: hash(40) }]);
  });
});

// finishing a transaction of creations on a real database
let svc: TestService;
let creation: RoundWork;
let key: string;
let send: (to: Hex, data: Hex) => Promise<TransactionReceipt>;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
  key = (await svc.createKey('pro')).key;
  const eas = svc.chain.eas as Hex;
  const log = createLogger('silent');
  const { db } = svc.infrastructure;
  creation = attestationRelayWorks({ db, eas, clock: systemClock, log, verifyBaseUrl: svc.config.verifyBaseUrl })[0]!;
  const account = privateKeyToAccount((await fundedKey(svc.chain.rpcUrl)) as Hex);
  const wallet = createWalletClient({ account, transport: http(svc.chain.rpcUrl) });
  const client = createPublicClient({ transport: http(svc.chain.rpcUrl) });
  send = async (to, data) =>
    client.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ chain: null, to, data }) });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
});

/** An on-chain create, waiting for the relayer (the test) once its attestation is pending; its answer later. */
async function pendingCreate(headers: Record<string, string> = {}) {
  const content = `relay-confirm ${Math.random()}`;
  const request = () =>
    call(svc.url, 'POST', '/v1/attestations', {
      key,
      headers,
      body: { type: 'human', content, contentType: 'text/plain' },
    });
  const answer = request();
  const contentHash = `0x${createHash('sha256').update(content).digest('hex')}`;
  const [row] = await until(async () => {
    const rows = await svc.sql.query<{ id: string }>(
      `SELECT id::text FROM attestations WHERE content_hash = $1 AND status = 'pending'`,
      [contentHash],
    );
    return rows.length > 0 ? rows : undefined;
  });
  return { id: row!.id, answer, replay: request };
}
const claim = () =>
  inTransaction(svc.infrastructure.db, (tx) =>
    creation.claim(tx, undefined, () => recordIntent(tx, 'attest')),
  ) as Promise<{ journalId: string; count: number }>;
const attestation = async (id: string) =>
  (
    await svc.sql.query<{
      status: string;
      uid: string | null;
      tx_hash: string | null;
      relay_tx_id: string | null;
      failure_reason: string | null;
    }>(`SELECT status, uid, tx_hash, relay_tx_id::text, failure_reason FROM attestations WHERE id = $1::bigint`, [id])
  )[0]!;
const journal = async (id: string) =>
  (
    await svc.sql.query<{ status: string; error: string | null; tx_hash: string | null }>(
      `SELECT status, error, tx_hash FROM relay_transactions WHERE id = $1::bigint`,
      [id],
    )
  )[0]!;

// the create whose transaction lost its nonce: put back in the queue, it rides the next transaction
let requeued: Awaited<ReturnType<typeof pendingCreate>>;

describe('a transaction whose nonce another took', () => {
  it('puts the items of a transaction whose nonce another took back in the queue, and closes its entry', async () => {
    requeued = await pendingCreate();
    const { journalId, count } = await claim();
    expect(count).toBe(1);
    expect((await attestation(requeued.id)).relay_tx_id).toBe(journalId);
    await creation.finish(journalId, 'dropped');
    expect(await attestation(requeued.id)).toMatchObject({ status: 'pending', relay_tx_id: null });
    expect(await journal(journalId)).toMatchObject({
      status: 'failed',
      error: 'replaced: the nonce was used by another transaction',
    });
  });
});

describe('a mined transaction without Attested events', () => {
  it('fails the items of a mined transaction without their Attested events, and answers their requests so', async () => {
    const created = await pendingCreate();
    const { journalId, count } = await claim();
    expect(count).toBe(2);
    // a plain transfer: mined, and no event of EAS in it
    const mined = await send('0x00000000000000000000000000000000000a11ce', '0x');
    expect(mined.status).toBe('success');
    await creation.finish(journalId, mined);
    const reason = 'expected 2 Attested events, found 0';
    for (const { id } of [requeued, created])
      expect(await attestation(id)).toMatchObject({ status: 'failed', uid: null, failure_reason: reason });
    expect(await journal(journalId)).toMatchObject({ status: 'failed', error: reason });
    expect((await Promise.all([requeued.answer, created.answer])).map((a) => a.status)).toEqual([503, 503]);
  });
});

describe('a mined transaction of creations', () => {
  it('confirms the items of a mined transaction: uids, the Idempotency-Key answer, the entry, the audit; once', async () => {
    const first = await pendingCreate({ 'idempotency-key': `confirm-${Math.random()}` });
    const second = await pendingCreate();
    const { journalId, count } = await claim();
    expect(count).toBe(2);
    const mined = await send(svc.chain.eas as Hex, await creation.calldata(journalId));
    const uids = attestedUids(mined, svc.chain.eas as Hex);
    expect(uids).toHaveLength(2);
    await creation.finish(journalId, mined);

    const answers = await Promise.all([first.answer, second.answer]);
    expect(answers.map((a) => [a.status, a.body.uid, a.body.txHash])).toEqual(
      uids.map((uid) => [201, uid, mined.transactionHash]),
    );
    for (const [i, { id }] of [first, second].entries())
      expect(await attestation(id)).toMatchObject({
        status: 'confirmed',
        uid: uids[i],
        tx_hash: mined.transactionHash,
      });
    expect(await journal(journalId)).toMatchObject({ status: 'mined', tx_hash: mined.transactionHash });
    // the Idempotency-Key's stored answer is the create's
    const replayed = await first.replay();
    expect([replayed.status, replayed.body]).toEqual([201, answers[0]!.body]);
    const audited = () =>
      svc.sql.query<{ resource: string }>(
        `SELECT resource FROM audit_entries WHERE action = 'attestation.created' AND details->>'txHash' = $1`,
        [mined.transactionHash],
      );
    expect((await audited()).map((r) => r.resource).sort()).toEqual(uids.map((uid) => `attestation:${uid}`).sort());

    // finished again (a second relayer for a moment): the entry is closed, nothing is written twice
    await creation.finish(journalId, mined);
    expect(await audited()).toHaveLength(2);
  });
});

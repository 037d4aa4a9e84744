import { randomUUID } from 'node:crypto';
import { createPublicClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleAnchor } from '../../src/anchoring/schedule-store.ts';
import { EAS_ARTIFACT } from '../../src/chain/eas-artifacts.ts';
import { startPrivateChain, until, type PrivateChain } from '../support/anvil.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, fundedKey, startTestService, type TestService } from '../support/service.ts';

let chain: PrivateChain;
let svc: TestService;
let receiver: Receiver;
let key: string;
let relayer: Hex;

beforeAll(async () => {
  chain = await startPrivateChain();
  receiver = await startReceiver();
  svc = await startTestService({
    env: {
      CHAIN_RPC_URL: chain.rpcUrl,
      EAS_ADDRESS: chain.eas,
      SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
      RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
      CONFIRMATIONS: '1',
      ANCHOR_INTERVAL: '1h', // anchors only when the test asks
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    },
  });
  relayer = privateKeyToAccount(svc.config.chain.relayerPrivateKey).address;
  key = (await svc.createKey('pro')).key;
  const events = ['attestation.created', 'attestation.replaced', 'attestation.revoked', 'attestation.anchored'];
  const subscribed = await call(svc.url, 'POST', '/v1/webhooks', { key, body: { url: receiver.url, events } });
  expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(201);
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
  await chain?.close();
});

type Delivery = { type: string; data: { uid: string; previousUid?: string; timestamp?: string } };
const deliveries = (type: string) =>
  receiver.received.map((r) => JSON.parse(r.body) as Delivery).filter((d) => d.type === type);
const content = () => ({ type: 'ai', content: `deep reorg ${randomUUID()}`, contentType: 'text/plain' });
const head = async () => BigInt((await chain.rpc('eth_blockNumber')) as string);
const blockOf = async (txHash: string) =>
  BigInt(((await chain.rpc('eth_getTransactionReceipt', [txHash])) as { blockNumber: string }).blockNumber);

const eas = () => createPublicClient({ transport: http(chain.rpcUrl) });
const revocationTime = async (uid: Hex) =>
  (
    (await eas().readContract({
      address: chain.eas,
      abi: EAS_ARTIFACT.abi,
      functionName: 'getAttestation',
      args: [uid],
    })) as { revocationTime: bigint }
  ).revocationTime;

/**
 * Takes the newest blocks back to (and including) `from` off the chain, with blocks that hold none of their
 * transactions; the blocks after it are an hour later, so an attestation mined again gets another uid.
 */
async function reorgFrom(from: bigint) {
  await chain.rpc('evm_setAutomine', [false]);
  await chain.rpc('anvil_reorg', [Number((await head()) - from + 1n), []]);
  const latest = (await chain.rpc('eth_getBlockByNumber', ['latest', false])) as { timestamp: string };
  await chain.rpc('evm_setNextBlockTimestamp', [Number(BigInt(latest.timestamp)) + 3600]);
  await chain.rpc('evm_setAutomine', [true]);
  await chain.rpc('evm_mine');
}

describe('a transaction reported mined (CONFIRMATIONS=1), then taken away by a deeper reorg', () => {
  it('is sent again: the records and Idempotency-Key answers move to the new uids, and attestation.replaced says so', async () => {
    const single = { body: content(), idem: randomUUID() };
    const batch = { body: { attestations: [content(), content()] }, idem: randomUUID() };
    const post = (path: string, r: { body: unknown; idem: string }) =>
      call(svc.url, 'POST', path, { key, body: r.body, headers: { 'idempotency-key': r.idem } });
    const first = await post('/v1/attestations', single);
    const firstBatch = await post('/v1/attestations/batch', batch);
    expect([first.status, firstBatch.status]).toEqual([201, 201]);
    const oldUids: string[] = [first.body.uid, ...firstBatch.body.attestations.map((a: { uid: string }) => a.uid)];
    await receiver.waitFor(3, 30_000);
    expect(
      deliveries('attestation.created')
        .map((d) => d.data.uid)
        .sort(),
    ).toEqual([...oldUids].sort());

    // two more blocks on top: a reorg three blocks deep is deeper than the one confirmation they were reported at
    await chain.rpc('evm_mine');
    await chain.rpc('evm_mine');
    await reorgFrom(await blockOf(first.body.txHash));
    expect(await chain.attestedBy(relayer)).toEqual([]);

    const replaced = await until(async () => {
      const seen = deliveries('attestation.replaced');
      return seen.length >= 3 ? seen : undefined;
    }, 60_000);
    const newUidOf = new Map(replaced.map((d) => [d.data.previousUid, d.data.uid]));
    const newUids = oldUids.map((old) => newUidOf.get(old)!);
    expect(newUids.every((uid, i) => uid && uid !== oldUids[i])).toBe(true);

    // each item once on chain, under its new uid only; the same transactions (same bytes) mined again
    expect((await chain.attestedBy(relayer)).sort()).toEqual([...newUids].sort());
    const again = await post('/v1/attestations', single);
    const batchAgain = await post('/v1/attestations/batch', batch);
    expect(again.body).toMatchObject({ uid: newUids[0], txHash: first.body.txHash });
    expect(batchAgain.body.attestations.map((a: { uid: string }) => a.uid)).toEqual(newUids.slice(1));
    expect(batchAgain.body.txHash).toBe(firstBatch.body.txHash);

    expect((await call(svc.url, 'GET', `/v1/attestations/${oldUids[0]}`)).status).toBe(404);
    const record = await call(svc.url, 'GET', `/v1/attestations/${newUids[0]}`);
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({ uid: newUids[0], txHash: first.body.txHash });
    expect(BigInt(record.body.blockNumber)).toBe(await blockOf(first.body.txHash));
    const rows = await svc.db
      .selectFrom('attestations')
      .select(['uid', 'previousUid', 'status'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual(oldUids.map((old, i) => ({ uid: newUids[i], previousUid: old, status: 'confirmed' })));
    // announced once: no second attestation.created, and the replacement in the audit log
    expect(deliveries('attestation.created')).toHaveLength(3);
    const audit = await svc.db
      .selectFrom('auditEntries')
      .select(['resource', 'details'])
      .where('action', '=', 'attestation.replaced')
      .$narrowType<{ details: { previousUid: string } }>()
      .execute();
    expect(audit.map((a) => [a.details.previousUid, a.resource]).sort()).toEqual(
      oldUids.map((old, i) => [old, `attestation:${newUids[i]}`]).sort(),
    );
  }, 120_000);

  it('a revocation taken away comes back: revoked again on chain, and announced again', async () => {
    const created = await call(svc.url, 'POST', '/v1/attestations', { key, body: content() });
    const uid = created.body.uid as Hex;
    const revoked = await call(svc.url, 'POST', `/v1/attestations/${uid}/revoke`, { key, body: {} });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(await revocationTime(uid)).toBeGreaterThan(0n);
    await until(async () => (deliveries('attestation.revoked').length === 1 ? true : undefined), 30_000);

    await chain.rpc('evm_mine');
    await reorgFrom(await blockOf(revoked.body.txHash)); // the attestation stands; its revocation is gone
    expect(await revocationTime(uid)).toBe(0n);

    await until(async () => ((await revocationTime(uid)) > 0n ? true : undefined), 60_000);
    const record = await until(async () => {
      const read = await call(svc.url, 'GET', `/v1/attestations/${uid}`);
      return read.body.revoked ? read.body : undefined;
    });
    expect(record.revocationTxHash).toBe(revoked.body.txHash);
    await until(async () => (deliveries('attestation.revoked').length === 2 ? true : undefined), 30_000);
    expect(deliveries('attestation.revoked').map((d) => d.data.uid)).toEqual([uid, uid]);
  }, 120_000);

  it('an attestation and its revocation taken away together: the revocation follows the new uid', async () => {
    const created = await call(svc.url, 'POST', '/v1/attestations', { key, body: content() });
    const oldUid = created.body.uid as Hex;
    const revoked = await call(svc.url, 'POST', `/v1/attestations/${oldUid}/revoke`, { key, body: {} });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    await chain.rpc('evm_mine');
    await reorgFrom(await blockOf(created.body.txHash));

    const replaced = await until(
      async () => deliveries('attestation.replaced').find((d) => d.data.previousUid === oldUid),
      60_000,
    );
    const newUid = replaced.data.uid as Hex;
    // its old revocation names the old uid and reverts; the revocation goes out again for the new one
    await until(async () => ((await revocationTime(newUid)) > 0n ? true : undefined), 60_000);
    const record = await until(async () => {
      const read = await call(svc.url, 'GET', `/v1/attestations/${newUid}`);
      return read.body.revoked ? read.body : undefined;
    });
    expect(record.revocationTxHash).not.toBe(revoked.body.txHash);
    const entries = await svc.db
      .selectFrom('relayTransactions')
      .select(['kind', 'status'])
      .where('txHash', 'in', [revoked.body.txHash, record.revocationTxHash])
      .execute();
    expect(entries.map((e) => e.status).sort()).toEqual(['failed', 'mined']);
    await until(async () => (deliveries('attestation.revoked').some((d) => d.data.uid === newUid) ? true : undefined));

    // a second reorg takes the reverted transaction's block too: its nonce must be used again, or the later ones stall
    await chain.rpc('evm_mine');
    await reorgFrom(await blockOf(revoked.body.txHash));
    expect(await revocationTime(newUid)).toBe(0n);
    await until(async () => ((await revocationTime(newUid)) > 0n ? true : undefined), 60_000);
    const filler = await until(async () => {
      const [entry] = await svc.db
        .selectFrom('relayTransactions')
        .select(['status', 'error'])
        .where('txHash', '=', revoked.body.txHash)
        .execute();
      return entry?.status === 'failed' ? entry : undefined;
    });
    expect(filler.error).toContain('nonce');
  }, 120_000);

  it('an anchor taken away is timestamped again, and its new time announced', async () => {
    const offchain = { ...content(), mode: 'offchain' };
    const uid = (await call(svc.url, 'POST', '/v1/attestations', { key, body: offchain })).body.uid as string;
    await scheduleAnchor(svc.infrastructure.db, 0);
    const anchorNow = async () => (await call(svc.url, 'GET', `/v1/attestations/${uid}`)).body.anchor ?? undefined;
    const first = await until(anchorNow, 60_000);
    await until(async () => (deliveries('attestation.anchored').length === 1 ? true : undefined), 30_000);

    await chain.rpc('evm_mine');
    await reorgFrom(BigInt(first.blockNumber));
    const again = await until(async () => {
      const anchor = await anchorNow();
      return anchor && anchor.timestamp !== first.timestamp ? anchor : undefined;
    }, 60_000);
    expect(again).toMatchObject({ root: first.root, txHash: first.txHash });
    const onChain = (await eas().readContract({
      address: chain.eas,
      abi: EAS_ARTIFACT.abi,
      functionName: 'getTimestamp',
      args: [first.root],
    })) as bigint;
    expect(new Date(Number(onChain) * 1000).toISOString()).toBe(again.timestamp);
    await until(async () => (deliveries('attestation.anchored').length === 2 ? true : undefined), 30_000);
    expect(deliveries('attestation.anchored').map((d) => d.data.timestamp)).toEqual([first.timestamp, again.timestamp]);
  }, 120_000);
});

import { randomUUID } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateChain, until, type PrivateChain } from '../support/anvil.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, fundedKey, startTestService, type TestService } from '../support/service.ts';

let chain: PrivateChain;
let svc: TestService;
let receiver: Receiver;
let key: string;

beforeAll(async () => {
  chain = await startPrivateChain();
  receiver = await startReceiver();
  svc = await startTestService({
    env: {
      CHAIN_RPC_URL: chain.rpcUrl,
      EAS_ADDRESS: chain.eas,
      SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
      RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
      CONFIRMATIONS: '2',
      RELAY_STUCK_AFTER: '2s',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    },
  });
  key = (await svc.createKey('pro')).key;
  const events = ['attestation.created', 'attestation.replaced'];
  const subscribed = await call(svc.url, 'POST', '/v1/webhooks', { key, body: { url: receiver.url, events } });
  expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(201);
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
  await chain?.close();
});

const journal = () =>
  svc.db
    .selectFrom('relayTransactions')
    .select(['id', 'nonce', 'txHash'])
    .orderBy('nonce')
    .$narrowType<{ nonce: number }>()
    .execute();
const content = () => ({ type: 'human', content: `reorg ${randomUUID()}`, contentType: 'text/plain' });

/** Starts a request (it answers once its transaction has its confirmations) and waits for its transaction in the mempool. */
async function sendInFlight(path: string, body: unknown) {
  const before = (await journal()).length;
  let settled = false;
  const response = call(svc.url, 'POST', path, { key, body }).finally(() => (settled = true));
  const sent = await until(async () => {
    const entry = (await journal())[before];
    if (!entry?.txHash) return undefined;
    return (await chain.rpc('eth_getTransactionByHash', [entry.txHash])) ? entry : undefined;
  });
  return { response, sent, settled: () => settled };
}

describe('a reorg while three transactions wait for their confirmations (CONFIRMATIONS=2)', () => {
  it('loses and duplicates nothing: each item once on chain and in the database, one attestation.created each', async () => {
    await chain.rpc('evm_setAutomine', [false]);
    const inFlight = [
      await sendInFlight('/v1/attestations', content()),
      await sendInFlight('/v1/attestations/batch', { attestations: [content(), content()] }),
      await sendInFlight('/v1/attestations', content()),
    ];
    const nonces = inFlight.map((f) => f.sent.nonce);
    expect(nonces).toEqual([nonces[0], nonces[0]! + 1, nonces[0]! + 2]);

    // one block holds all three: one confirmation is not enough to report any of them
    await chain.rpc('evm_mine');
    const minedIn = (await chain.rpc('eth_getTransactionReceipt', [inFlight[0]!.sent.txHash])) as {
      blockNumber: string;
    };
    for (const f of inFlight) expect(await chain.rpc('eth_getTransactionReceipt', [f.sent.txHash])).toBeTruthy();
    // a fixed wait on purpose: that nothing is reported on one confirmation only time can show (the relayer looks
    // every 200 ms: several looks)
    await new Promise((r) => setTimeout(r, 1_500));
    expect(inFlight.map((f) => f.settled())).toEqual([false, false, false]);
    const early = await svc.db.selectFrom('attestations').select('status').execute();
    expect(early.map((r) => r.status)).toEqual(['pending', 'pending', 'pending', 'pending']);

    // the block is replaced by one that holds only the first transaction; the other two leave the chain
    const raw = await chain.rpc('eth_getRawTransactionByHash', [inFlight[0]!.sent.txHash]);
    await chain.rpc('anvil_reorg', [1, [[raw, 0]]]);
    expect(await chain.rpc('eth_getTransactionReceipt', [inFlight[1]!.sent.txHash])).toBeNull();
    expect(await chain.rpc('eth_getTransactionReceipt', [inFlight[2]!.sent.txHash])).toBeNull();
    // more load meanwhile
    const later = call(svc.url, 'POST', '/v1/attestations', { key, body: content() });
    await chain.rpc('evm_setIntervalMining', [1]);

    const answers = await Promise.all([...inFlight.map((f) => f.response), later]);
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const uids = [
      answers[0]!.body.uid,
      ...answers[1]!.body.attestations.map((a: { uid: string }) => a.uid),
      answers[2]!.body.uid,
      answers[3]!.body.uid,
    ] as string[];
    expect(new Set(uids).size).toBe(5);
    // the first three went out once each, with the same bytes: the same transactions, now in other blocks
    expect(answers.slice(0, 3).map((a) => a.body.txHash)).toEqual(inFlight.map((f) => f.sent.txHash));

    const relayer = privateKeyToAccount(svc.config.chain.relayerPrivateKey).address;
    expect((await chain.attestedBy(relayer)).sort()).toEqual([...uids].sort());
    const rows = await svc.db
      .selectFrom('attestations')
      .select(['uid', 'status', 'txHash', 'blockNumber'])
      .orderBy('id')
      .$narrowType<{ blockNumber: string }>()
      .execute();
    expect(rows.map((r) => r.uid).sort()).toEqual([...uids].sort());
    expect(rows.every((r) => r.status === 'confirmed')).toBe(true);
    const head = BigInt((await chain.rpc('eth_blockNumber')) as string);
    for (const row of rows) {
      const receipt = (await chain.rpc('eth_getTransactionReceipt', [row.txHash])) as { blockNumber: string };
      expect(BigInt(receipt.blockNumber)).toBe(BigInt(row.blockNumber));
      expect(head - BigInt(receipt.blockNumber) + 1n).toBeGreaterThanOrEqual(2n);
    }
    // at the height the reorg replaced, only the transaction the new block holds
    const atReplaced = rows.filter((r) => BigInt(r.blockNumber) === BigInt(minedIn.blockNumber));
    expect(atReplaced.map((r) => r.txHash)).toEqual([answers[0]!.body.txHash]);
    const entries = await svc.db.selectFrom('relayTransactions').select('status').execute();
    expect(entries.map((e) => e.status)).toEqual(['mined', 'mined', 'mined', 'mined']);

    // one attestation.created per attestation, to a real receiver, and nothing replaced (no uid was ever reported)
    await receiver.waitFor(5, 30_000);
    await new Promise((r) => setTimeout(r, 2_000)); // on purpose: no sixth event, which only time can show
    const delivered = receiver.received.map((r) => JSON.parse(r.body) as { type: string; data: { uid: string } });
    expect(delivered.map((d) => d.type)).toEqual(Array(5).fill('attestation.created'));
    expect(delivered.map((d) => d.data.uid).sort()).toEqual([...uids].sort());
    await chain.rpc('evm_setIntervalMining', [0]);
  }, 120_000);
});

import { createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateChain, until, type PrivateChain } from '../support/anvil.ts';
import { call, fundedKey, startTestService, type TestService } from '../support/service.ts';

let chain: PrivateChain;
let svc: TestService;
let key: string;
const GWEI = 1_000_000_000n;
const hex = (n: bigint) => `0x${n.toString(16)}`;

beforeAll(async () => {
  chain = await startPrivateChain();
  svc = await startTestService({
    env: {
      CHAIN_RPC_URL: chain.rpcUrl,
      EAS_ADDRESS: chain.eas,
      SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
      RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
      RELAY_STUCK_AFTER: '1s',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    },
  });
  key = (await svc.createKey('pro')).key;
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await chain?.close();
});

const journal = () =>
  svc.db
    .selectFrom('relayTransactions')
    .select(['id', 'nonce', 'txHash', 'sentHashes'])
    .orderBy('nonce')
    .$narrowType<{ nonce: number; sentHashes: string[] }>()
    .execute();

/** Starts a create (it answers once mined) and waits until its own transaction is in the node's mempool. */
async function createInFlight(label: string) {
  const before = (await journal()).length;
  const response = call(svc.url, 'POST', '/v1/attestations', {
    key,
    body: { type: 'human', content: `${label} ${Math.random()}`, contentType: 'text/plain' },
  });
  // the journal's hash once the node holds it (a transaction the node refused is re-signed: a new hash)
  const sent = await until(async () => {
    const entry = (await journal())[before];
    if (!entry?.txHash) return undefined;
    return (await chain.rpc('eth_getTransactionByHash', [entry.txHash])) ? entry : undefined;
  });
  return { response, sent };
}

describe('a transaction stuck with later ones behind it', () => {
  it('is re-signed at its nonce with higher fees; it and every transaction after it land, each item once', async () => {
    await chain.rpc('evm_setAutomine', [false]);
    // a cheap block: the first transaction is signed for a base fee of 1 gwei
    await chain.rpc('anvil_setNextBlockBaseFeePerGas', [hex(GWEI)]);
    await chain.rpc('evm_mine');
    const stuck = await createInFlight('stuck');
    // the base fee jumps to 50 gwei: the first transaction cannot be mined at its fees; the next two are priced for it
    await chain.rpc('anvil_setNextBlockBaseFeePerGas', [hex(50n * GWEI)]);
    await chain.rpc('evm_mine');
    expect(await chain.rpc('eth_getTransactionReceipt', [stuck.sent.txHash])).toBeNull();
    const second = await createInFlight('second');
    const third = await createInFlight('third');
    expect([second.sent.nonce, third.sent.nonce]).toEqual([stuck.sent.nonce + 1, stuck.sent.nonce + 2]);

    await chain.rpc('evm_setIntervalMining', [1]);
    const answers = await Promise.all([stuck.response, second.response, third.response]);
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(201);

    const entries = await journal();
    expect(entries).toHaveLength(3);
    const [first] = entries;
    expect(first!.sentHashes.length).toBeGreaterThan(1); // re-signed with bumped fees
    expect(answers[0]!.body.txHash).toBe(first!.txHash);
    expect(first!.sentHashes).toContain(answers[0]!.body.txHash);
    expect(answers[0]!.body.txHash).not.toBe(stuck.sent.txHash);

    const uids = answers.map((a) => a.body.uid);
    expect(new Set(uids).size).toBe(3);
    const relayer = privateKeyToAccount(svc.config.chain.relayerPrivateKey).address;
    expect((await chain.attestedBy(relayer)).sort()).toEqual([...uids].sort());
    const rows = await svc.db.selectFrom('attestations').select(['status', 'uid']).execute();
    expect(rows.map((r) => r.uid).sort()).toEqual([...uids].sort());
    expect(rows.every((r) => r.status === 'confirmed')).toBe(true);
  }, 60_000);
});

describe('a nonce taken by another transaction', () => {
  it('puts back only the items of the transaction it replaced: they go out again at a later nonce; the others stand', async () => {
    await chain.rpc('evm_setIntervalMining', [0]);
    await chain.rpc('evm_setAutomine', [false]);
    const relayer = privateKeyToAccount(svc.config.chain.relayerPrivateKey);
    const attestedBefore = (await chain.attestedBy(relayer.address)).length;
    const replaced = await createInFlight('replaced');
    const kept = await createInFlight('kept');
    // someone else holding the relayer key takes the first nonce with fees our bumps never reach (cap 500 gwei)
    const wallet = createWalletClient({ account: relayer, transport: http(chain.rpcUrl) });
    const foreign = await wallet.sendTransaction({
      chain: null,
      to: relayer.address,
      value: 0n,
      nonce: replaced.sent.nonce,
      gas: 21_000n,
      maxFeePerGas: 1_000n * GWEI,
      maxPriorityFeePerGas: 1_000n * GWEI,
    });
    await chain.rpc('evm_setAutomine', [true]);
    await chain.rpc('evm_mine');
    expect(await chain.rpc('eth_getTransactionReceipt', [foreign])).toBeTruthy();

    const [again, stood] = await Promise.all([replaced.response, kept.response]);
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(stood.status, JSON.stringify(stood.body)).toBe(201);
    expect(stood.body.txHash).toBe(kept.sent.txHash);
    expect(again.body.txHash).not.toBe(replaced.sent.txHash);
    const [first] = await svc.db
      .selectFrom('relayTransactions')
      .select(['status', 'error'])
      .where('id', '=', replaced.sent.id)
      .execute();
    expect(first).toMatchObject({ status: 'failed', error: expect.stringContaining('another transaction') });
    const [resent] = await svc.db
      .selectFrom('relayTransactions')
      .select('nonce')
      .where('txHash', '=', again.body.txHash)
      .$narrowType<{ nonce: number }>()
      .execute();
    expect(resent!.nonce).toBeGreaterThan(kept.sent.nonce);
    const attested = await chain.attestedBy(relayer.address);
    expect(attested).toHaveLength(attestedBefore + 2);
    expect(attested).toEqual(expect.arrayContaining([again.body.uid, stood.body.uid]));
  }, 60_000);
});

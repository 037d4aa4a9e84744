import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { createWalletClient, http, parseTransaction, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateChain, until, type PrivateChain } from '../support/anvil.ts';
import { runCli, serveChild } from '../support/cli.ts';
import { createTestDatabase } from '../support/database.ts';
import { openTestDb, type Db } from '../support/db.ts';
import { TEST_SERVICE_SECRET } from '../support/secret.ts';
import { call, fundedKey } from '../support/service.ts';
import { rpcChain } from '../../src/chain/rpc-chain.ts';
import { freePort } from '../../src/system/ports.ts';

let chain: PrivateChain;
let env: NodeJS.ProcessEnv;
let db: Db;
let oldKey: Hex;
let newKey: Hex;

beforeAll(async () => {
  chain = await startPrivateChain();
  const databaseUrl = await createTestDatabase();
  [oldKey, newKey] = (await Promise.all([fundedKey(chain.rpcUrl), fundedKey(chain.rpcUrl)])) as [Hex, Hex];
  env = {
    PATH: process.env.PATH,
    DATABASE_URL: databaseUrl,
    SERVICE_SECRET: TEST_SERVICE_SECRET,
    CHAIN_RPC_URL: chain.rpcUrl,
    EAS_ADDRESS: chain.eas,
    SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
    RELAY_STUCK_AFTER: '60s', // no fee bump in the way: the old key's hashes are the ones mined
    ANCHOR_INTERVAL: '0',
    LOG_LEVEL: 'silent',
  };
  db = openTestDb(databaseUrl);
}, 60_000);
afterAll(async () => {
  await db?.destroy();
  await chain?.close();
});

const address = (key: Hex) => privateKeyToAccount(key).address;
const journal = () =>
  db
    .selectFrom('relayTransactions')
    .select(['id', 'status', 'signer', 'txHash', 'attempts', 'rawTx'])
    .orderBy('id')
    .$narrowType<{ txHash: string; rawTx: Hex }>()
    .execute();
const stop = async (child: ChildProcess, signal: NodeJS.Signals) => {
  child.kill(signal);
  if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
};

describe('rotating the relayer key with transactions of the old key in flight', () => {
  it('the new key sees the old one’s to their end, requeues the one whose nonce was cancelled, and sends the rest: each item on chain once', async () => {
    const port = await freePort();
    let child = await serveChild({ ...env, RELAYER_PRIVATE_KEY: oldKey }, port);
    const base = `http://127.0.0.1:${port}`;
    const { key } = JSON.parse((await runCli(env, 'keys', 'create', '--tier', 'enterprise', '--json')).stdout) as {
      key: string;
    };
    const create = (idem: string, body: unknown, path = '/v1/attestations') =>
      call(base, 'POST', path, { key, body, headers: { 'idempotency-key': idem } });
    const content = () => ({ type: 'human', content: `rotation ${randomUUID()}`, contentType: 'text/plain' });

    // the old key: three transactions in the mempool (one a batch of three), none mined
    await chain.rpc('evm_setAutomine', [false]);
    const before = [
      { idem: randomUUID(), body: content(), path: '/v1/attestations' },
      { idem: randomUUID(), body: { attestations: [content(), content(), content()] }, path: '/v1/attestations/batch' },
      { idem: randomUUID(), body: content(), path: '/v1/attestations' },
    ];
    const waiting: Array<Promise<unknown>> = [];
    for (const [i, r] of before.entries()) {
      waiting.push(create(r.idem, r.body, r.path).catch(() => undefined));
      await until(async () => ((await journal()).filter((e) => e.status === 'sent').length > i ? true : undefined));
    }
    const old = (await journal()).filter((e) => e.status === 'sent');
    expect(old.map((e) => e.signer)).toEqual(Array(3).fill(address(oldKey).toLowerCase()));
    await stop(child, 'SIGKILL');
    await Promise.all(waiting);

    // the old key's owner cancels the middle one: the same nonce, a transfer to itself, at higher fees
    const middle = parseTransaction(old[1]!.rawTx);
    await chain.rpc('anvil_dropTransaction', [old[1]!.txHash]);
    const wallet = createWalletClient({
      account: privateKeyToAccount(oldKey),
      chain: rpcChain(chain.chainId, chain.rpcUrl),
      transport: http(chain.rpcUrl),
    });
    const cancel = await wallet.sendTransaction({
      to: address(oldKey),
      value: 0n,
      nonce: middle.nonce!,
      gas: 21_000n,
      maxFeePerGas: middle.maxFeePerGas! * 2n,
      maxPriorityFeePerGas: middle.maxPriorityFeePerGas! * 2n,
    });

    // restarted with the new key, under load: more creates while the old key's transactions are still out
    child = await serveChild({ ...env, RELAYER_PRIVATE_KEY: newKey }, port);
    try {
      const after = Array.from({ length: 6 }, () => ({
        idem: randomUUID(),
        body: content(),
        path: '/v1/attestations',
      }));
      const sent = after.map((r) => create(r.idem, r.body));
      await until(async () =>
        (await journal()).some((e) => e.signer === address(newKey).toLowerCase()) ? true : undefined,
      );
      await chain.rpc('evm_setAutomine', [true]);
      await chain.rpc('evm_mine');
      for (const res of await Promise.all(sent)) expect(res.status, JSON.stringify(res.body)).toBe(201);

      const all = [...before, ...after];
      const answers = await until(async () => {
        const retries = await Promise.all(all.map((r) => create(r.idem, r.body, r.path)));
        const onChain = (body: any) => (body.attestations ?? [body]).every((a: { txHash: unknown }) => a.txHash);
        return retries.every((r) => r.status === 201 && onChain(r.body)) ? retries : undefined;
      }, 60_000);
      const uids = answers.flatMap((r) => (r.body.attestations ?? [r.body]).map((a: { uid: string }) => a.uid));
      expect(new Set(uids).size).toBe(11);

      // the old key's first and last are mined as it signed them; the cancelled batch's items went out with the new key
      const byOld = await chain.attestedBy(address(oldKey));
      const byNew = await chain.attestedBy(address(newKey));
      expect([...byOld, ...byNew].sort()).toEqual([...uids].sort());
      expect(byOld.sort()).toEqual([answers[0]!.body.uid, answers[2]!.body.uid].sort());
      expect(byNew).toEqual(expect.arrayContaining(answers[1]!.body.attestations.map((a: { uid: string }) => a.uid)));
      const entries = await journal();
      const oldEntries = entries.filter((e) => old.some((o) => o.id === e.id));
      expect(oldEntries.map((e) => [e.status, e.attempts])).toEqual([
        ['mined', 1],
        ['failed', 1],
        ['mined', 1],
      ]);
      expect(await chain.rpc('eth_getTransactionReceipt', [cancel])).toMatchObject({ status: '0x1' });
      const rows = await db.selectFrom('attestations').select('status').execute();
      expect(rows.map((r) => r.status)).toEqual(Array(11).fill('confirmed'));
    } finally {
      await stop(child, 'SIGTERM');
    }
  }, 120_000);
});

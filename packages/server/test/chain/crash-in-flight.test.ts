import { randomUUID } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateChain, until, type PrivateChain } from '../support/anvil.ts';
import { runCli, serveChild } from '../support/cli.ts';
import { createTestDatabase } from '../support/database.ts';
import { openTestDb, type Db } from '../support/db.ts';
import { call, fundedKey } from '../support/service.ts';
import { freePort } from '../../src/system/ports.ts';

let chain: PrivateChain;
let env: NodeJS.ProcessEnv;
let db: Db;
let relayer: string;

beforeAll(async () => {
  chain = await startPrivateChain();
  const databaseUrl = await createTestDatabase();
  const key = await fundedKey(chain.rpcUrl);
  relayer = privateKeyToAccount(key as `0x${string}`).address;
  env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    CHAIN_RPC_URL: chain.rpcUrl,
    EAS_ADDRESS: chain.eas,
    SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
    RELAYER_PRIVATE_KEY: key,
    RELAY_STUCK_AFTER: '10s', // no bump in the test's way: the hashes journaled are the ones mined
    LOG_LEVEL: 'silent',
  };
  db = openTestDb(databaseUrl);
}, 60_000);
afterAll(async () => {
  await db?.destroy();
  await chain?.close();
});

const sentHashes = async () =>
  (
    await db.selectFrom('relayTransactions').select('txHash').where('status', '=', 'sent').orderBy('nonce').execute()
  ).map((r) => r.txHash);

describe('a worker killed (SIGKILL) with three transactions in flight', () => {
  it('is reconciled at restart: one attestation per item on chain and in the database, each Idempotency-Key retry answers its uid', async () => {
    const port = await freePort();
    let child = await serveChild(env, port);
    const base = `http://127.0.0.1:${port}`;
    const { key } = JSON.parse((await runCli(env, 'keys', 'create', '--tier', 'pro', '--json')).stdout) as {
      key: string;
    };
    await chain.rpc('evm_setAutomine', [false]); // transactions wait in the mempool until mined
    const content = () => ({ type: 'ai', content: `in flight ${randomUUID()}`, contentType: 'text/plain' });
    // a single create, a batch of three (one transaction, never split) and another single create
    const requests = [
      { path: '/v1/attestations', body: content(), idem: randomUUID() },
      { path: '/v1/attestations/batch', body: { attestations: [content(), content(), content()] }, idem: randomUUID() },
      { path: '/v1/attestations', body: content(), idem: randomUUID() },
    ];
    const first: Array<Promise<unknown>> = [];
    for (const [i, request] of requests.entries()) {
      const headers = { 'idempotency-key': request.idem };
      first.push(call(base, 'POST', request.path, { key, body: request.body, headers }).catch(() => undefined));
      const hash = await until(async () => (await sentHashes())[i]);
      await until(async () => ((await chain.rpc('eth_getTransactionByHash', [hash])) ? true : undefined));
    }
    const inFlight = await sentHashes();
    expect(inFlight).toHaveLength(3);
    child.kill('SIGKILL');
    await Promise.all(first);
    // the node forgets the middle one: the restarted relayer must send its same bytes again
    await chain.rpc('anvil_dropTransaction', [inFlight[1]]);
    expect(await chain.rpc('eth_getTransactionByHash', [inFlight[1]])).toBeNull();

    child = await serveChild(env, port);
    try {
      await until(async () => ((await chain.rpc('eth_getTransactionByHash', [inFlight[1]])) ? true : undefined));
      await chain.rpc('evm_setAutomine', [true]);
      await chain.rpc('evm_mine');
      const retries = await Promise.all(
        requests.map((r) => call(base, 'POST', r.path, { key, body: r.body, headers: { 'idempotency-key': r.idem } })),
      );
      for (const retry of retries) expect(retry.status, JSON.stringify(retry.body)).toBe(201);
      expect(retries.map((r) => r.body.txHash)).toEqual(inFlight);
      const uids = [
        retries[0]!.body.uid,
        ...retries[1]!.body.attestations.map((i: { uid: string }) => i.uid),
        retries[2]!.body.uid,
      ];
      expect(new Set(uids).size).toBe(5);

      expect((await chain.attestedBy(relayer)).sort()).toEqual([...uids].sort());
      const rows = await db.selectFrom('attestations').select(['uid', 'status', 'txHash']).orderBy('id').execute();
      expect(rows.map((r) => r.uid)).toEqual(uids);
      expect(rows.every((r) => r.status === 'confirmed')).toBe(true);
      const journal = await db.selectFrom('relayTransactions').select(['status', 'txHash']).orderBy('nonce').execute();
      expect(journal).toEqual(inFlight.map((hash) => ({ status: 'mined', txHash: hash })));
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }, 60_000);
});

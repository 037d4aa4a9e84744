import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { createPublicClient, http, parseAbiItem, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateChain, until, type PrivateChain } from '../support/anvil.ts';
import { runCli, serveChild } from '../support/cli.ts';
import { createTestDatabase } from '../support/database.ts';
import { openTestDb, type Db } from '../support/db.ts';
import { call, fundedKey } from '../support/service.ts';
import { freePort } from '../../src/system/ports.ts';
import { scheduleAnchor } from '../../src/anchoring/schedule-store.ts';

const TIMESTAMPED = parseAbiItem('event Timestamped(bytes32 indexed data, uint64 indexed timestamp)');

let chain: PrivateChain;
let env: NodeJS.ProcessEnv;
let db: Db;

beforeAll(async () => {
  chain = await startPrivateChain();
  const databaseUrl = await createTestDatabase();
  env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    CHAIN_RPC_URL: chain.rpcUrl,
    EAS_ADDRESS: chain.eas,
    SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
    RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
    RELAY_STUCK_AFTER: '10s', // no bump in the test's way: the hash journaled is the one mined
    ANCHOR_INTERVAL: '1h', // the test asks for the one anchor run
    TRUST_PROXY: 'true', // each read its own client address (call() sends one): no anonymous limit in the way
    LOG_LEVEL: 'silent',
  };
  db = openTestDb(databaseUrl);
}, 60_000);
afterAll(async () => {
  await db?.destroy();
  await chain?.close();
});

const sentAnchor = async () =>
  (
    await db
      .selectFrom('relayTransactions')
      .select('txHash')
      .where('kind', '=', 'anchor')
      .where('status', '=', 'sent')
      .$narrowType<{ txHash: Hex }>()
      .execute()
  )[0]?.txHash;

describe('a worker killed (SIGKILL) between the broadcast of an anchor and its receipt', () => {
  it('is reconciled at restart: one Timestamped log for the root, and every record carries that transaction', async () => {
    const port = await freePort();
    let child = await serveChild(env, port);
    const base = `http://127.0.0.1:${port}`;
    const { key } = JSON.parse((await runCli(env, 'keys', 'create', '--tier', 'pro', '--json')).stdout) as {
      key: string;
    };
    const item = (i: number) => ({ type: 'human', content: `crash ${i} ${Math.random()}`, contentType: 'text/plain' });
    const batch = await call(base, 'POST', '/v1/attestations/batch', {
      key,
      body: { attestations: Array.from({ length: 100 }, (_, i) => ({ ...item(i), mode: 'offchain' })) },
    });
    expect(batch.status).toBe(201);
    const uids: string[] = batch.body.attestations.map((a: { uid: string }) => a.uid);

    await chain.rpc('evm_setAutomine', [false]); // the anchor waits in the mempool until mined
    await scheduleAnchor(db, 0);
    const hash = await until(sentAnchor, 30_000);
    await until(async () => ((await chain.rpc('eth_getTransactionByHash', [hash])) ? true : undefined));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    // the node forgets it too: the restarted relayer must send the same bytes again, not a second anchor
    await chain.rpc('anvil_dropTransaction', [hash]);
    expect(await chain.rpc('eth_getTransactionByHash', [hash])).toBeNull();

    child = await serveChild(env, port);
    try {
      await until(async () => ((await chain.rpc('eth_getTransactionByHash', [hash])) ? true : undefined));
      await chain.rpc('evm_setAutomine', [true]);
      await chain.rpc('evm_mine');
      const read = async (uid: string) => (await call(base, 'GET', `/v1/attestations/${uid}`)).body;
      await until(async () => ((await read(uids.at(-1)!)).anchor ? true : undefined), 30_000);

      const records = await Promise.all(uids.map(read));
      const root = records[0].anchor.root as Hex;
      for (const record of records) {
        expect(record.anchor).toMatchObject({ root, txHash: hash });
        expect(StandardMerkleTree.verify(root, ['bytes32'], [record.uid], record.anchor.proof)).toBe(true);
      }
      const client = createPublicClient({ transport: http(chain.rpcUrl) });
      const logs = await client.getLogs({
        address: chain.eas,
        event: TIMESTAMPED,
        args: { data: root },
        fromBlock: 0n,
      });
      expect(logs.map((l) => l.transactionHash)).toEqual([hash]);
      expect(
        await db
          .selectFrom('relayTransactions')
          .select(['kind', 'status', 'txHash'])
          .where('kind', '=', 'anchor')
          .execute(),
      ).toEqual([{ kind: 'anchor', status: 'mined', txHash: hash }]);
      expect(await db.selectFrom('anchors').select(['root', 'leafCount', 'txHash']).execute()).toEqual([
        { root, leafCount: 100, txHash: hash },
      ]);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }, 90_000);
});

import { connect, createServer, type Server, type Socket } from 'node:net';
import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { createPublicClient, http, parseAbi, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateChain, until, type PrivateChain } from '../support/anvil.ts';
import { call, fundedKey, startTestService, type TestService } from '../support/service.ts';

/** A TCP proxy in front of the chain's RPC that can refuse every connection (a chain that went away) and come back. */
async function switchableProxy(
  port: number,
): Promise<{ url: string; down(): void; up(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let refusing = false;
  const server: Server = createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => (sockets.delete(socket), client.destroy(), upstream.destroy()));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    down: () => ((refusing = true), sockets.forEach((s) => s.destroy())),
    up: () => void (refusing = false),
    close: () => new Promise((resolve) => (sockets.forEach((s) => s.destroy()), server.close(() => resolve()))),
  };
}

const EAS_ABI = parseAbi(['function getTimestamp(bytes32 data) view returns (uint64)']);

let chain: PrivateChain;
let proxy: Awaited<ReturnType<typeof switchableProxy>>;
let svc: TestService;

beforeAll(async () => {
  chain = await startPrivateChain();
  proxy = await switchableProxy(Number(new URL(chain.rpcUrl).port));
  svc = await startTestService({
    env: {
      CHAIN_RPC_URL: proxy.url,
      EAS_ADDRESS: chain.eas,
      SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
      RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
      ANCHOR_INTERVAL: '2s',
    },
  });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await proxy?.close();
  await chain?.close();
});

const anchorsMade = async () => (await svc.db.selectFrom('anchors').select('id').execute()).length;

describe('anchoring while the chain is down', () => {
  it('never holds up an off-chain create, waits with one anchor, and catches up once the chain is back', async () => {
    const { key } = await svc.createKey('pro');
    proxy.down();
    const create = async (i: number) => {
      const started = Date.now();
      const res = await call(svc.url, 'POST', '/v1/attestations', {
        key,
        body: { type: 'human', content: `down ${i} ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
      });
      expect(res.status).toBe(201);
      expect(Date.now() - started).toBeLessThan(1_500);
      return res.body.uid as string;
    };
    const uids: string[] = [];
    for (let i = 0; i < 20; i++) uids.push(await create(i));
    await until(async () => ((await anchorsMade()) === 1 ? true : undefined), 20_000);
    // the anchor runs go on every 2 s: the one anchor waits for the chain, later creates wait for the next
    for (let i = 20; i < 40; i++) uids.push(await create(i));
    // a fixed wait on purpose: the runs of these 5 s (one every 2 s) must make no second anchor
    await new Promise((r) => setTimeout(r, 5_000));
    expect(await anchorsMade()).toBe(1);
    const failed = await svc.db
      .selectFrom('relayTransactions')
      .select('id')
      .where('kind', '=', 'anchor')
      .where('status', '=', 'failed')
      .execute();
    expect(failed.length).toBeGreaterThan(0);
    const read = async (uid: string) => (await call(svc.url, 'GET', `/v1/attestations/${uid}`)).body;
    expect((await read(uids[0]!)).anchor).toBeNull();

    proxy.up();
    await until(async () => ((await Promise.all(uids.map(read))).every((r) => r.anchor) ? true : undefined), 60_000);
    const records = await Promise.all(uids.map(read));
    const roots = [...new Set(records.map((r) => r.anchor.root as Hex))];
    expect(roots).toHaveLength(2); // the anchor that waited, then one for everything made meanwhile
    expect(await anchorsMade()).toBe(2);
    for (const record of records)
      expect(StandardMerkleTree.verify(record.anchor.root, ['bytes32'], [record.uid], record.anchor.proof)).toBe(true);
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    for (const root of roots)
      expect(
        await client.readContract({ address: chain.eas, abi: EAS_ABI, functionName: 'getTimestamp', args: [root] }),
      ).toBeGreaterThan(0n);
  }, 120_000);
});

import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { createPublicClient, decodeFunctionData, http, parseAbi, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/anvil.ts';
import { call, startTestService, type TestService } from '../support/service.ts';
import { scheduleAnchor } from '../../src/anchoring/schedule-store.ts';

// What a third party has: the records over HTTP, @openzeppelin/merkle-tree and the chain through viem. The service is
// only started and asked to anchor now; every check below uses neither its code nor its database.
const EAS_ABI = parseAbi([
  'function getTimestamp(bytes32 data) view returns (uint64)',
  'function timestamp(bytes32 data) returns (uint64)',
  'event Timestamped(bytes32 indexed data, uint64 indexed timestamp)',
]);

interface Anchor {
  root: Hex;
  proof: Hex[];
  txHash: Hex;
  blockNumber: number;
  timestamp: string;
}

let svc: TestService;

beforeAll(async () => {
  // an interval longer than the test: the only anchor run is the one the test asks for, after every create
  svc = await startTestService({ env: { ANCHOR_INTERVAL: '1h' } });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
});

async function records(uids: string[]): Promise<Array<{ uid: Hex; revoked: boolean; anchor: Anchor | null }>> {
  const out = [];
  for (let i = 0; i < uids.length; i += 25)
    out.push(
      ...(await Promise.all(
        uids.slice(i, i + 25).map(async (uid) => (await call(svc.url, 'GET', `/v1/attestations/${uid}`)).body),
      )),
    );
  return out;
}

describe('anchoring 1,000 off-chain attestations made within one interval', () => {
  it('takes ONE EAS.timestamp transaction; every proof verifies with the library and the chain holds the root', async () => {
    const { key } = await svc.createKey('pro');
    const item = (i: number) => ({
      type: i % 3 ? 'human' : 'ai',
      content: `anchored ${i} ${Math.random()}`,
      contentType: 'text/plain',
      mode: 'offchain',
    });
    const batches = await Promise.all(
      Array.from({ length: 10 }, (_, b) =>
        call(svc.url, 'POST', '/v1/attestations/batch', {
          key,
          body: { attestations: Array.from({ length: 100 }, (_, i) => item(b * 100 + i)) },
        }),
      ),
    );
    for (const batch of batches) expect(batch.status, JSON.stringify(batch.body)).toBe(201);
    const uids: string[] = batches.flatMap((b) => b.body.attestations.map((a: { uid: string }) => a.uid));
    expect(new Set(uids).size).toBe(1_000);
    // revoked before its anchor: it stays in the tree, the proof says when it existed
    expect((await call(svc.url, 'POST', `/v1/attestations/${uids[0]}/revoke`, { key, body: {} })).status).toBe(200);
    const onchain = await call(svc.url, 'POST', '/v1/attestations', { key, body: { ...item(-1), mode: 'onchain' } });
    expect(onchain.status).toBe(201);
    expect((await records(uids.slice(0, 5))).every((r) => r.anchor === null)).toBe(true);

    await scheduleAnchor(svc.infrastructure.db, 0);
    await until(async () => ((await records(uids.slice(-1)))[0]!.anchor ? true : undefined), 60_000);

    const read = await records(uids);
    const [first] = read;
    const { root, txHash, blockNumber, timestamp } = first!.anchor!;
    for (const record of read) {
      expect(record.anchor, record.uid).not.toBeNull();
      expect(record.anchor).toMatchObject({ root, txHash, blockNumber, timestamp });
      expect(StandardMerkleTree.verify(root, ['bytes32'], [record.uid], record.anchor!.proof), record.uid).toBe(true);
    }
    expect(read[0]!.revoked).toBe(true);
    // a proof is the tree's, not any path: it fails for another uid
    expect(StandardMerkleTree.verify(root, ['bytes32'], [read[1]!.uid], read[0]!.anchor!.proof)).toBe(false);

    const chain = createPublicClient({ transport: http(svc.chain.rpcUrl) });
    const eas = svc.chain.eas as Hex;
    const seconds = await chain.readContract({
      address: eas,
      abi: EAS_ABI,
      functionName: 'getTimestamp',
      args: [root],
    });
    expect(seconds).toBeGreaterThan(0n);
    expect(new Date(Number(seconds) * 1000).toISOString()).toBe(timestamp);
    const logs = await chain.getLogs({ address: eas, event: EAS_ABI[2], args: { data: root }, fromBlock: 0n });
    expect(logs.map((l) => l.transactionHash)).toEqual([txHash]);
    const tx = await chain.getTransaction({ hash: txHash });
    expect(tx.to?.toLowerCase()).toBe(eas.toLowerCase());
    expect(decodeFunctionData({ abi: EAS_ABI, data: tx.input })).toEqual({ functionName: 'timestamp', args: [root] });
    expect(Number(tx.blockNumber)).toBe(blockNumber);

    // in search results too; an on-chain attestation is on chain already: no anchor
    const hash = (await call(svc.url, 'GET', `/v1/attestations/${uids[7]}`)).body.contentHash;
    const search = await call(svc.url, 'GET', `/v1/attestations?hash=${hash}`);
    expect(search.body.data[0].anchor).toEqual(read[7]!.anchor);
    expect((await call(svc.url, 'GET', `/v1/attestations/${onchain.body.uid}`)).body.anchor).toBeNull();
  }, 120_000);
});

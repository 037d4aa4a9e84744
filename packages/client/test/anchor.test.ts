import { randomBytes } from 'node:crypto';
import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { describe, expect, inject, it } from 'vitest';
import '../../server/test/support/provided.ts';
import { EAS_PREDEPLOY, verifyAnchor, type AnchoredRecord, type AttestationAnchor } from '../src/index.ts';

const chain = inject('chain');
const CHAIN_ID = 31337;
/** `timestamp(bytes32)`'s selector. */
const TIMESTAMP = '0x4d003070';
const randomHex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;

async function rpc<T>(method: string, params: unknown[]): Promise<T> {
  const res = await fetch(chain.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Calls EAS.timestamp(root) on the run's anvil from a fresh funded account; the block it landed in. */
async function timestampOnChain(root: string): Promise<{ txHash: string; blockNumber: number; time: number }> {
  const from = randomHex(20);
  await rpc('anvil_setBalance', [from, '0x3635c9adc5dea00000']);
  await rpc('anvil_impersonateAccount', [from]);
  const txHash = await rpc<string>('eth_sendTransaction', [{ from, to: chain.eas, data: TIMESTAMP + root.slice(2) }]);
  // the run's anvil is shared: it may be mining on an interval for another file, so wait for the receipt
  let receipt: { status: string; blockNumber: string } | null = null;
  for (let i = 0; i < 300 && !receipt; i++) {
    receipt = await rpc<{ status: string; blockNumber: string } | null>('eth_getTransactionReceipt', [txHash]);
    if (!receipt) await new Promise((r) => setTimeout(r, 100));
  }
  if (!receipt) throw new Error(`no receipt for ${txHash} after 30 s`);
  expect(receipt.status).toBe('0x1');
  const block = await rpc<{ timestamp: string }>('eth_getBlockByNumber', [receipt.blockNumber, false]);
  return { txHash, blockNumber: Number(receipt.blockNumber), time: Number(block.timestamp) };
}

/** A tree of `count` fresh uids, as the service builds one; each uid's record with its anchor (not yet on chain). */
function anchoredRecords(count: number): { root: string; records: (AnchoredRecord & { anchor: AttestationAnchor })[] } {
  const uids = Array.from({ length: count }, () => [randomHex(32)]);
  const tree = StandardMerkleTree.of(uids, ['bytes32']);
  const records = uids.map(([uid], i) => ({
    uid: uid!,
    chainId: CHAIN_ID,
    anchor: { root: tree.root, proof: tree.getProof(i), txHash: '', blockNumber: 0, timestamp: '' },
  }));
  return { root: tree.root, records };
}

async function anchoredOnChain(count: number) {
  const { root, records } = anchoredRecords(count);
  const mined = await timestampOnChain(root);
  for (const r of records)
    Object.assign(r.anchor, {
      txHash: mined.txHash,
      blockNumber: mined.blockNumber,
      timestamp: new Date(mined.time * 1000).toISOString(),
    });
  return { root, records, mined };
}

const options = { rpcUrl: chain.rpcUrl, easAddress: chain.eas };

describe('verifyAnchor against a real EAS contract', () => {
  it('says every uid of a timestamped tree existed by the block time of the timestamp', async () => {
    const { root, records, mined } = await anchoredOnChain(7);
    for (const record of records) {
      expect(await verifyAnchor(record, options)).toEqual({
        valid: true,
        existedBy: new Date(mined.time * 1000),
        root,
        txHash: mined.txHash,
        blockNumber: mined.blockNumber,
      });
    }
  });

  it('verifies the lone uid of a one-leaf tree (an empty proof)', async () => {
    const { records } = await anchoredOnChain(1);
    expect(records[0]!.anchor.proof).toEqual([]);
    expect(await verifyAnchor(records[0]!, options)).toMatchObject({ valid: true });
  });

  it('refuses a tampered proof, a proof for another uid and malformed values as bad_proof, before any chain read', async () => {
    const { records } = await anchoredOnChain(4);
    const [a, b] = records as [(typeof records)[0], (typeof records)[0]];
    const offline = { rpcUrl: 'http://127.0.0.1:1', easAddress: chain.eas };
    const flipped = a.anchor.proof[0]!.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    const cases: AnchoredRecord[] = [
      { ...a, anchor: { ...a.anchor, proof: [flipped, ...a.anchor.proof.slice(1)] } },
      { ...a, anchor: { ...a.anchor, proof: a.anchor.proof.slice(1) } },
      { ...a, anchor: { ...a.anchor, proof: b.anchor.proof } },
      { ...a, uid: randomHex(32) },
      { ...a, anchor: { ...a.anchor, root: '0x1234' } },
      { ...a, anchor: { ...a.anchor, proof: ['nonsense'] } },
    ];
    for (const record of cases)
      expect(await verifyAnchor(record, offline)).toEqual({
        valid: false,
        reason: 'bad_proof',
        message: expect.stringContaining('does not lead from uid'),
      });
  });

  it('says root_not_timestamped for a valid proof of a root the chain never timestamped', async () => {
    const { root, records } = anchoredRecords(3);
    expect(await verifyAnchor(records[1]!, options)).toEqual({
      valid: false,
      reason: 'root_not_timestamped',
      message: `the EAS contract ${chain.eas} holds no timestamp for root ${root}`,
    });
  });

  it('says not_anchored for a record without an anchor (null or absent), asking no one', async () => {
    const offline = { rpcUrl: 'http://127.0.0.1:1' };
    for (const record of [{ uid: randomHex(32), anchor: null }, { uid: randomHex(32) }])
      expect(await verifyAnchor(record, offline)).toMatchObject({ valid: false, reason: 'not_anchored' });
  });

  it("says wrong_chain when the RPC serves another chain than the record's, and reads Base's EAS predeploy by default", async () => {
    const { records } = await anchoredOnChain(2);
    const calls: { method: string; params: unknown[] }[] = [];
    const recording: typeof fetch = (input, init) => {
      calls.push(JSON.parse(String(init?.body)) as (typeof calls)[0]);
      return fetch(input, init);
    };
    const result = await verifyAnchor({ ...records[0]!, chainId: 8453 }, { rpcUrl: chain.rpcUrl, fetch: recording });
    expect(result).toEqual({
      valid: false,
      reason: 'wrong_chain',
      message: `the RPC serves chain ${CHAIN_ID}, the record chain 8453`,
    });
    expect(calls.find((c) => c.method === 'eth_call')?.params[0]).toMatchObject({ to: EAS_PREDEPLOY });
  });

  it('needs easAddress off Base and Optimism, and throws (no verdict) when the RPC does not answer', async () => {
    const { records } = await anchoredOnChain(2);
    await expect(verifyAnchor(records[0]!, { rpcUrl: chain.rpcUrl })).rejects.toThrow(/pass easAddress/);
    await expect(verifyAnchor(records[0]!, { rpcUrl: 'http://127.0.0.1:1', easAddress: chain.eas })).rejects.toThrow(
      /the chain's RPC did not answer/,
    );
  });
});

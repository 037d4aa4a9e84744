import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Hex } from 'viem';
import { keccak256 } from '../chain/keccak.ts';

interface AnchorTree {
  root: Hex;
  /** The proof of the uid at `index` (in the order given): its sibling hashes from the leaf up, 32 bytes each. */
  proofOf(index: number): Buffer;
  /**
   * The proofs of the uids from `from` to `to` (exclusive), one after another in one buffer, and each one's length:
   * an anchor run writes thousands at once, and one buffer is one allocation where a buffer each was thousands.
   */
  proofsOf(from: number, to: number): { bytes: Buffer; lengths: number[] };
}

/** Hashes between two yields to the event loop: the worker's relayer and deliveries run in the same process. */
const SLICE = 2_000;

/**
 * The leaves' indexes in the order of their hashes: by first byte (the hashes are uniform), then each of the 256
 * buckets sorted on its own, so that no one step holds the event loop (one sort of a large anchor's leaves did).
 */
async function sortLeaves(leaves: Buffer, count: number): Promise<number[]> {
  const buckets: number[][] = Array.from({ length: 256 }, () => []);
  for (let i = 0; i < count; i++) buckets[leaves[i * 32]!]!.push(i);
  const sorted: number[] = [];
  for (const [first, bucket] of buckets.entries()) {
    bucket.sort((a, b) => leaves.compare(leaves, b * 32, b * 32 + 32, a * 32, a * 32 + 32));
    for (const index of bucket) sorted.push(index);
    if (first % 16 === 15) await yieldToEventLoop();
  }
  return sorted;
}

/**
 * The standard Merkle tree of @openzeppelin/merkle-tree (`StandardMerkleTree.of(uids.map(u => [u]), ['bytes32'])`),
 * built the same way: leaf = keccak256(keccak256(abi.encode(uid))) (one bytes32 encodes as itself), leaves sorted,
 * a complete binary tree in one array (leaves at its end), each node the keccak256 of its children in sorted order.
 * The library's own builder took 2.5 times as long at 100,000 uids, all of it without yielding (hex strings, BigInt
 * comparisons and checks at every hash; BENCHMARKS.md), so the tree is built on bytes here, yielding to the event
 * loop; test/anchoring/tree.test.ts holds it to the library's roots, proofs and verifier.
 */
export async function buildAnchorTree(uids: readonly string[]): Promise<AnchorTree> {
  const count = uids.length;
  if (count === 0) throw new Error('an anchor needs at least one uid');
  const leaves = Buffer.allocUnsafe(count * 32);
  for (let i = 0; i < count; i++) {
    leaves.set(keccak256(keccak256(Buffer.from(uids[i]!.slice(2), 'hex'))), i * 32);
    if (i % SLICE === SLICE - 1) await yieldToEventLoop();
  }
  const sorted = await sortLeaves(leaves, count);
  const size = 2 * count - 1;
  const nodes = Buffer.allocUnsafe(size * 32);
  const nodeOf = new Uint32Array(count); // a uid's leaf, as a node index
  for (const [rank, index] of sorted.entries()) {
    const node = size - 1 - rank;
    leaves.copy(nodes, node * 32, index * 32, index * 32 + 32);
    nodeOf[index] = node;
  }
  const pair = Buffer.allocUnsafe(64);
  for (let node = size - 1 - count; node >= 0; node--) {
    const left = (2 * node + 1) * 32;
    const right = left + 32;
    const leftFirst = nodes.compare(nodes, right, right + 32, left, left + 32) <= 0;
    nodes.copy(pair, 0, leftFirst ? left : right, (leftFirst ? left : right) + 32);
    nodes.copy(pair, 32, leftFirst ? right : left, (leftFirst ? right : left) + 32);
    nodes.set(keccak256(pair), node * 32);
    if (node % SLICE === 0) await yieldToEventLoop();
  }
  const proofsOf = (from: number, to: number) => {
    const lengths: number[] = [];
    for (let i = from; i < to; i++) {
      let depth = 0;
      for (let node = nodeOf[i]!; node > 0; node = (node - 1) >> 1) depth++;
      lengths.push(depth * 32);
    }
    const bytes = Buffer.allocUnsafe(lengths.reduce((sum, length) => sum + length, 0));
    let at = 0;
    for (let i = from; i < to; i++)
      for (let node = nodeOf[i]!; node > 0; node = (node - 1) >> 1) {
        const sibling = node % 2 === 1 ? node + 1 : node - 1;
        at += nodes.copy(bytes, at, sibling * 32, sibling * 32 + 32);
      }
    return { bytes, lengths };
  };
  return {
    root: `0x${nodes.subarray(0, 32).toString('hex')}`,
    proofOf: (index) => proofsOf(index, index + 1).bytes,
    proofsOf,
  };
}

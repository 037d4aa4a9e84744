import { randomBytes } from 'node:crypto';
import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { describe, expect, it } from 'vitest';
import { buildAnchorTree } from '../../src/anchoring/tree.ts';

const uid = () => `0x${randomBytes(32).toString('hex')}`;
const hexProof = (bytes: Buffer) =>
  Array.from({ length: bytes.length / 32 }, (_, i) => `0x${bytes.subarray(i * 32, i * 32 + 32).toString('hex')}`);

describe("an anchor's Merkle tree", () => {
  it("is @openzeppelin/merkle-tree's standard tree: the same root, and every proof is the library's and passes its verifier", async () => {
    for (const count of [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 100, 257]) {
      const uids = Array.from({ length: count }, uid);
      const ours = await buildAnchorTree(uids);
      const theirs = StandardMerkleTree.of(
        uids.map((u) => [u]),
        ['bytes32'],
      );
      expect(ours.root, `${count} leaves`).toBe(theirs.root);
      for (const [i, u] of uids.entries()) {
        const proof = hexProof(ours.proofOf(i));
        expect(proof).toEqual(theirs.getProof(i));
        expect(StandardMerkleTree.verify(ours.root, ['bytes32'], [u], proof)).toBe(true);
      }
    }
  });

  it('is the same tree at thousands of leaves (its sort goes by first byte, then within each)', async () => {
    const uids = Array.from({ length: 3_000 }, uid);
    const ours = await buildAnchorTree(uids);
    const theirs = StandardMerkleTree.of(
      uids.map((u) => [u]),
      ['bytes32'],
    );
    expect(ours.root).toBe(theirs.root);
    for (let i = 0; i < uids.length; i += 97) expect(hexProof(ours.proofOf(i))).toEqual(theirs.getProof(i));
    // a range of proofs in one buffer is those proofs one after another, each of its length
    const { bytes, lengths } = ours.proofsOf(500, 600);
    let at = 0;
    for (const [k, length] of lengths.entries()) {
      expect(hexProof(bytes.subarray(at, at + length))).toEqual(theirs.getProof(500 + k));
      at += length;
    }
    expect(at).toBe(bytes.length);
  });

  it('proves nothing for a uid that is not in it, or against another root', async () => {
    const uids = Array.from({ length: 10 }, uid);
    const tree = await buildAnchorTree(uids);
    const proof = hexProof(tree.proofOf(3));
    expect(StandardMerkleTree.verify(tree.root, ['bytes32'], [uid()], proof)).toBe(false);
    expect(StandardMerkleTree.verify((await buildAnchorTree(uids.slice(1))).root, ['bytes32'], [uids[3]], proof)).toBe(
      false,
    );
  });

  it('refuses an empty tree', async () => {
    await expect(buildAnchorTree([])).rejects.toThrow(/at least one uid/);
  });
});

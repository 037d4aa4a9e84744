import type { AnchorRecord } from './contracts.ts';

/** What a record's query selects of its anchor: the anchor once mined, and the proof. */
export interface AnchorColumns {
  /** The mined anchor's fields (json_build_object: block number as a number, timestamp as PostgreSQL's text). */
  anchor: { root: string; txHash: string; blockNumber: number; timestamp: string } | null;
  /** The sibling hashes, 32 bytes each, leaf to root. */
  anchorProof: Buffer | null;
}

/** The record's `anchor`: null until the root's transaction is mined (and always for on-chain attestations). */
export function toAnchor(row: AnchorColumns): AnchorRecord | null {
  if (!row.anchor || !row.anchorProof) return null;
  const proof: string[] = [];
  for (let at = 0; at < row.anchorProof.length; at += 32)
    proof.push(`0x${row.anchorProof.subarray(at, at + 32).toString('hex')}`);
  return {
    root: row.anchor.root,
    proof,
    txHash: row.anchor.txHash,
    blockNumber: row.anchor.blockNumber,
    timestamp: new Date(row.anchor.timestamp).toISOString(),
  };
}

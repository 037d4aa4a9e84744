import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import type { Hex } from 'viem';
import type { Attestation, AttestationAnchor } from '@attestation-service/client';
import { check, sameHex } from './compare.ts';
import type { EasReader, TrustAnchors } from './eas.ts';
import type { Check } from './types.ts';

/**
 * What the chain says about an off-chain attestation's anchor: `verified` with the chain's own time of the root's
 * timestamp, or not, with the reason in words (and then no claim of existence at all).
 */
export type AnchorVerdict =
  | { verified: true; existedBy: string; root: Hex; txHash: Hex; blockNumber: number }
  | { verified: false; reason: string };

const BYTES32 = /^0x[0-9a-fA-F]{64}$/;

/** The record's anchor, once its shape is sound: a compromised API could send anything here. */
function anchorOf(record: Attestation): AttestationAnchor | null | 'malformed' {
  // typed by the SDK, but not checked by it: an API from before anchoring sends none at all
  const anchor: unknown = record.anchor;
  if (anchor === null || anchor === undefined) return null;
  const a = anchor as Partial<AttestationAnchor>;
  const sound =
    typeof a.root === 'string' &&
    BYTES32.test(a.root) &&
    Array.isArray(a.proof) &&
    a.proof.every((node) => typeof node === 'string' && BYTES32.test(node)) &&
    typeof a.txHash === 'string' &&
    BYTES32.test(a.txHash) &&
    Number.isSafeInteger(a.blockNumber);
  return sound ? (a as AttestationAnchor) : 'malformed';
}

/** Whether the proof leads from the leaf `[uid]` to the root in `@openzeppelin/merkle-tree`'s standard tree. */
function proofHolds(uid: string, anchor: Pick<AttestationAnchor, 'root' | 'proof'>): boolean {
  try {
    return BYTES32.test(uid) && StandardMerkleTree.verify(anchor.root, ['bytes32'], [uid], anchor.proof);
  } catch {
    return false;
  }
}

function failed(reason: string): { anchor: AnchorVerdict; checks: Check[] } {
  return { anchor: { verified: false, reason }, checks: [check('Anchor', false, reason)] };
}

/**
 * An off-chain attestation's anchor, judged by the chain: the proof must lead from the uid to the root, the EAS
 * contract must hold a timestamp for that root (`getTimestamp`), and the record's transaction must be the one that
 * timestamped it, in the record's block. `anchor: null` when there is none yet (nothing to check, nothing failed).
 */
export async function anchorChecks(
  record: Attestation,
  eas: EasReader,
  anchors: TrustAnchors,
): Promise<{ anchor: AnchorVerdict | null; checks: Check[] }> {
  if (record.mode !== 'offchain') return { anchor: null, checks: [] };
  const anchor = anchorOf(record);
  if (anchor === null) return { anchor: null, checks: [] };
  if (anchor === 'malformed') return failed('the record holds an anchor that is not a root, a proof and a transaction');
  if (!proofHolds(record.uid, anchor))
    return failed(`the proof does not lead from this attestation's uid to root ${anchor.root}`);
  const root = anchor.root as Hex;
  const [seconds, mined] = await Promise.all([eas.getTimestamp(root), eas.timestampedIn(anchor.txHash as Hex)]);
  if (seconds === 0n) return failed(`the EAS contract ${anchors.eas} holds no timestamp for root ${root}`);
  const logged = mined?.logs.some((l) => sameHex(l.address, anchors.eas) && sameHex(l.data, root));
  if (!mined || !logged || mined.blockNumber !== BigInt(anchor.blockNumber))
    return failed(
      !mined
        ? `the chain has no transaction ${anchor.txHash}`
        : !logged
          ? `transaction ${anchor.txHash} did not timestamp root ${root} on the EAS contract`
          : `transaction ${anchor.txHash} is in block ${mined.blockNumber}; the record says block ${anchor.blockNumber}`,
    );
  const existedBy = new Date(Number(seconds) * 1000).toISOString();
  return {
    anchor: { verified: true, existedBy, root, txHash: anchor.txHash as Hex, blockNumber: anchor.blockNumber },
    checks: [
      check(
        'Anchor',
        true,
        `the proof leads from this uid to root ${root}, which the EAS contract timestamped at ${existedBy} in transaction ${anchor.txHash}`,
      ),
    ],
  };
}

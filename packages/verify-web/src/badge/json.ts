import { sourceTypeOf } from '../source-type.ts';
import type { StatusListSignal, Verdict } from '../verdict/types.ts';

/** The public badge as JSON: `verified` only when the chain backs the record and nothing revoked it. */
export interface BadgeJson {
  uid: string;
  type: 'human' | 'ai';
  verified: boolean;
  /** The chain's word (EAS revocation time, or getRevokeOffchain), not our database's. */
  revoked: boolean;
  mode: 'onchain' | 'offchain';
  createdAt: string;
  verifyUrl: string;
  /** The verdict in one word: verified, revoked or mismatch. */
  status: 'verified' | 'revoked' | 'mismatch';
  /**
   * An off-chain attestation's anchor, checked on the chain: existed by the block time of its root's timestamp, or
   * `verified: false` with the reason (and no time); null when not anchored yet, and for on-chain attestations.
   */
  anchor: { verified: true; existedBy: string; txHash: string } | { verified: false; reason: string } | null;
  /** Whose claim it is: the attester address the chain shows, and the account that proved it (null: the service). */
  claimant: { kind: 'service' | 'account'; address: string; accountName: string | null };
  /** How the content came to be: the record's IPTC digital source type URI, and its label; null when it names none. */
  digitalSourceType: string | null;
  digitalSourceTypeLabel: string | null;
  /**
   * The service's W3C status list beside the chain: `revoked` or `not-revoked` (list and entry) once the credential and
   * its list verify against the API's keys; `unchecked` with the reason when the API did not answer (nothing is known),
   * `unsound` when it served documents that do not hold.
   */
  statusList: StatusListSignal | null;
}

export function badgeJson(v: Verdict, verifyBaseUrl: string): BadgeJson | undefined {
  const r = v.record;
  if (!r || (v.state !== 'verified' && v.state !== 'revoked' && v.state !== 'mismatch')) return undefined;
  const sourceType = sourceTypeOf(r);
  return {
    uid: r.uid,
    type: r.type,
    verified: v.state === 'verified',
    revoked: v.chainRevokedAt !== null,
    mode: r.mode,
    createdAt: r.createdAt,
    verifyUrl: `${verifyBaseUrl}/${r.uid}`,
    status: v.state,
    claimant: r.claimant ?? { kind: 'service', address: r.attester, accountName: null },
    anchor: !v.anchor
      ? null
      : v.anchor.verified
        ? { verified: true, existedBy: v.anchor.existedBy, txHash: v.anchor.txHash }
        : { verified: false, reason: v.anchor.reason },
    digitalSourceType: sourceType?.uri ?? null,
    digitalSourceTypeLabel: sourceType?.label ?? null,
    statusList: v.statusList,
  };
}

/** The API error body (the same `{ code, message, details }` shape as the service's API). */
export function errorBody(code: string, message: string, details: Record<string, unknown> = {}): string {
  return JSON.stringify({ code, message, details });
}

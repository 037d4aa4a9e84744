import { claimantOf } from '../claimant.ts';
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
  /**
   * Whose claim it is: the attester address the chain shows and the account that proved it. `name` is the account's
   * self-chosen name (null: the service), `domain` a domain it proved it controls; `verified` says whether who the
   * claimant is was checked (a proved domain, or the service itself), never that the name is true. `accountName` is
   * `name` under its first spelling, kept for existing readers. `verified` at the top stays about the attestation.
   */
  claimant: {
    kind: 'service' | 'account';
    address: string;
    name: string | null;
    domain: string | null;
    verified: boolean;
    accountName: string | null;
  };
  /** How the content came to be: the record's IPTC digital source type URI, and its label; null when it names none. */
  digitalSourceType: string | null;
  digitalSourceTypeLabel: string | null;
  /** The model behind an AI claim as the record names it (signed: see the page's "AI details"); null when none. */
  ai: { model: string; promptHash: string | null } | null;
  /**
   * The service's W3C status list beside the chain: `revoked` or `not-revoked` (list and entry) once the credential and
   * its list verify against the API's keys; `unchecked` with the reason when the API did not answer (nothing is known),
   * `unsound` when it served documents that do not hold.
   */
  statusList: StatusListSignal | null;
  /**
   * The origins it derives from (its signed refUID, then theirs), newest first, each with its standing as the service
   * records it; empty for an origin, and when the chain could not be read just now (`derivedFromTruncated` false).
   */
  derivedFrom: Array<{ uid: string; verdict: 'valid' | 'revoked'; verifyUrl: string }>;
  derivedFromTruncated: boolean;
  /** An off-chain original's on-chain promotion, and a promotion's off-chain original, as the service records them. */
  onchainUid: string | null;
  offchainUid: string | null;
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
    claimant: { ...claimantOf(r), accountName: claimantOf(r).name },
    anchor: !v.anchor
      ? null
      : v.anchor.verified
        ? { verified: true, existedBy: v.anchor.existedBy, txHash: v.anchor.txHash }
        : { verified: false, reason: v.anchor.reason },
    digitalSourceType: sourceType?.uri ?? null,
    digitalSourceTypeLabel: sourceType?.label ?? null,
    ai: r.ai ? { model: r.ai.model, promptHash: r.ai.promptHash } : null,
    statusList: v.statusList,
    derivedFrom: (v.provenance?.links.slice(1) ?? []).map((link) => ({
      uid: link.uid,
      verdict: link.verdict,
      verifyUrl: `${verifyBaseUrl}/${link.uid}`,
    })),
    derivedFromTruncated: v.provenance?.truncated ?? false,
    // the promotion link as the service records it (null when none): each uid's own badge judges that one
    onchainUid: r.onchainUid ?? null,
    offchainUid: r.offchainUid ?? null,
  };
}

/** The API error body (the same `{ code, message, details }` shape as the service's API). */
export function errorBody(code: string, message: string, details: Record<string, unknown> = {}): string {
  return JSON.stringify({ code, message, details });
}

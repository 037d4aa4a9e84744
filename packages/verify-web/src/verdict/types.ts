import type { Attestation, Provenance } from '@attestation-service/client';
import type { AnchorVerdict } from './anchor.ts';

/** What the page and the badge say about an attestation. */
export type VerdictState = 'verified' | 'revoked' | 'mismatch' | 'not-found' | 'unavailable' | 'rate-limited';

/** One comparison between our record and what the chain (or the signature) proves. */
export interface Check {
  label: string;
  ok: boolean;
  /** What was compared, in words a reader can follow. */
  detail: string;
}

export interface Verdict {
  state: VerdictState;
  uid: string;
  /** Our database's record, as the API serves it; null when the API knows no such uid. */
  record: Attestation | null;
  checks: Check[];
  /** When the chain says the attestation was revoked (ISO 8601), independently of the record. */
  chainRevokedAt: string | null;
  /** An off-chain attestation's anchor as the chain judges it; null when there is none (yet) or it is on-chain. */
  anchor: AnchorVerdict | null;
  /** What the service's status list says of the attestation's credential; null when there is no record. */
  statusList: StatusListSignal | null;
  /** The chain of origins the record derives from, as the API answers it; absent when it names none or no answer. */
  provenance?: Provenance;
  /** `rate-limited`: the seconds the API said to wait before this visitor looks up again. */
  retryAfterSeconds?: number;
}

/**
 * Revocation by the service's Bitstring Status List, beside the chain's: the bit of the attestation's credential, both
 * documents verified against the API's keys. `unchecked`: the API did not answer (nothing is known); `unsound`: it
 * answered with documents that do not verify or do not say what they must.
 */
export type StatusListSignal =
  | { state: 'revoked' | 'not-revoked'; list: string; index: number }
  | { state: 'unchecked'; reason: string }
  | { state: 'unsound'; reason: string };

/** Reads an attestation's status list signal; `fresh` reads the list again rather than from a cache. */
export interface StatusListChecker {
  check(record: Attestation, visitorIp: string, fresh?: boolean): Promise<StatusListSignal>;
}

/** The record's fields as the API returns them, read through the SDK. */
export type { Attestation };

/** The API's public types, written out so the published package needs no server code; test/router-types.ts proves they equal the router's. */
import type { Origin } from '@attestation-service/protocol';
import type { AiDetails, AiDetailsInput } from './ai-details.ts';

export type { Origin } from '@attestation-service/protocol';
export type Mode = 'onchain' | 'offchain';
export type Hex = `0x${string}` | string;

export interface CreateAttestationInput {
  /** Whether the content is human-made or AI-generated. */
  type: Origin;
  /** The content itself (only its SHA-256 is stored). Give this or `contentHash`. */
  content?: string;
  /** SHA-256 of the content, hex, with or without 0x. Give this or `content`. */
  contentHash?: string;
  /** A media type such as `text/plain` or `image/png`. */
  contentType: string;
  /** `onchain` (default: an EAS transaction, counts toward the monthly quota) or `offchain` (signed, unmetered). */
  mode?: Mode;
  /**
   * How the content came to be, as an IPTC digital source type URI (`http://cv.iptc.org/newscodes/digitalsourcetype/…`):
   * trained-model terms for `ai`, others for `human`. Default: `trainedAlgorithmicMedia` for `ai`, `digitalCreation`
   * for `human`.
   */
  digitalSourceType?: string;
  /** Your registered attester's signature over it (see `signDelegation`); the relayer still pays the gas. */
  delegation?: Delegation;
  /**
   * The attestation this one derives from (any account's), signed as its EAS `refUID`. It must exist (404
   * NOT_FOUND); an on-chain claim needs an on-chain origin (409 ORIGIN_NOT_ONCHAIN). Not with `delegation` yet.
   */
  refUid?: string;
  /** The model behind an AI claim, signed with it; `type: "human"` with it is 400 VALIDATION_FAILED. */
  ai?: AiDetailsInput;
}

/**
 * A customer attester's signature over an attestation: on-chain an EAS delegated request (`nonce`, `deadline`),
 * off-chain the EAS off-chain package's signature (`time`, `salt`).
 */
export interface Delegation {
  /** The registered address that signed. */
  attester: string;
  /** The EIP-712 signature, r ‖ s ‖ v, 65 bytes as hex. */
  signature: string;
  /** On-chain: the attester's EAS nonce signed for (decimal). */
  nonce?: string;
  /** On-chain: Unix seconds after which the request is void; '0' for never. */
  deadline?: string;
  /** Off-chain: the signed time, Unix seconds (decimal). */
  time?: string;
  /** Off-chain: the signed salt (32 bytes, hex). */
  salt?: string;
}

/** Whose claim an attestation is: the service's attester, or an address an account registered. */
export interface Claimant {
  kind: 'service' | 'account';
  address: string;
  /** The account that proved control of the address by a signed challenge; null for the service. Self-declared. */
  accountName: string | null;
  /** A domain the account proved it controls (DNS TXT or a /.well-known/ file); null when none, and for the service. */
  domain: string | null;
}

export interface AttesterChallenge {
  id: string;
  address: string;
  /** The text to sign as it is (EIP-191 personal_sign). */
  message: string;
  expiresAt: string;
}

export interface Attester {
  address: string;
  createdAt: string;
}

/** What an attester's next signature is made under: its next EAS nonce, the chain, EAS and the schema. */
export interface AttesterNonce {
  address: string;
  nonce: string;
  signing: { chainId: number; eas: string; easVersion: string; schemaUid: string };
}

/** An EAS off-chain attestation (version 2) in the EAS SDK's package shape. */
export interface OffchainPackage {
  sig: {
    version: 2;
    uid: string;
    domain: { name: 'EAS Attestation'; version: string; chainId: number; verifyingContract: string };
    primaryType: 'Attest';
    types: { Attest: { name: string; type: string }[] };
    message: {
      version: 2;
      schema: string;
      recipient: string;
      time: string;
      expirationTime: string;
      revocable: boolean;
      refUID: string;
      data: string;
      salt: string;
    };
    signature: { v: number; r: string; s: string };
  };
  signer: string;
}

export interface CreatedAttestation {
  uid: string;
  /** The transaction hash; null for off-chain attestations. */
  txHash: string | null;
  verifyUrl: string;
  mode: Mode;
  /** The IPTC digital source type URI it was recorded with. */
  digitalSourceType: string;
  offchain?: OffchainPackage | undefined;
  ai?: AiDetails | undefined;
}

/** Where an off-chain attestation's uid was anchored: a Merkle root timestamped on chain with `EAS.timestamp`. */
export interface AttestationAnchor {
  /** The root of the standard Merkle tree (`@openzeppelin/merkle-tree`, leaves `[uid]`, encoding `['bytes32']`). */
  root: string;
  /** The uid's proof in that tree. */
  proof: string[];
  /** The transaction that called `EAS.timestamp(root)`. */
  txHash: string;
  blockNumber: number;
  /** The block's time, ISO 8601, as the service recorded it (verifyAnchor reads the chain's own). */
  timestamp: string;
}

export interface Attestation {
  uid: string;
  type: Origin;
  /** How the content came to be: an IPTC digital source type URI, consistent with `type`. */
  digitalSourceType: string;
  mode: Mode;
  contentHash: string;
  contentType: string;
  chainId: number;
  schemaUid: string;
  attester: string;
  /** Whose claim it is: the service's, or the account's registered address (and the account's name). */
  claimant: Claimant;
  /** The attestation this one derives from (its signed refUID); null for an origin. See `attestations.provenance`. */
  refUid: string | null;
  /** A promotion: the off-chain attestation this on-chain one puts on chain; else null. */
  offchainUid: string | null;
  /** A promoted off-chain attestation: its on-chain attestation, once mined; else null. */
  onchainUid: string | null;
  txHash: string | null;
  blockNumber: number | null;
  /** ISO 8601 */
  createdAt: string;
  revoked: boolean;
  revokedAt: string | null;
  revocationTxHash: string | null;
  verifyUrl: string;
  offchain: OffchainPackage | null;
  /** The model behind an AI claim; null when none was named. */
  ai: AiDetails | null;
  /** Off-chain only: the on-chain proof of when it existed; null until anchored (check it with `verifyAnchor`). */
  anchor: AttestationAnchor | null;
}

export interface SearchInput {
  /** SHA-256 of the content (with or without 0x, any case). */
  hash: string;
  /** 1 to 100, default 20. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

/** Your account's own attestations (`GET /v1/attestations?mine=true`, with your key), filtered. */
export interface MineInput {
  type?: Origin;
  mode?: Mode;
  /** Created at or after (ISO 8601). */
  from?: string;
  /** Created before (ISO 8601). */
  to?: string;
  /** 1 to 100, default 20. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface SearchResult {
  data: Attestation[];
  nextCursor: string | null;
}

export interface BatchInput {
  attestations: CreateAttestationInput[];
}

export interface BatchResult {
  batchId: string;
  txHash: string | null;
  /** The items made, in request order. */
  attestations: CreatedAttestation[];
  /** Items refused alone (an unknown or off-chain `refUid`), by request index; absent when none was. */
  errors?: Array<{ index: number; code: string; message: string; details: Record<string, unknown> }> | undefined;
}

/** One attestation of a provenance chain, with its standing. */
export interface ProvenanceLink {
  uid: string;
  /** The next, older link; null at the origin. */
  refUid: string | null;
  type: Origin;
  mode: Mode;
  attester: string;
  txHash: string | null;
  /** ISO 8601 */
  createdAt: string;
  revokedAt: string | null;
  verdict: 'valid' | 'revoked';
  verifyUrl: string;
}

/** `GET /v1/attestations/{uid}/provenance`: this attestation first, then each origin back to the first. */
export interface Provenance {
  uid: string;
  links: ProvenanceLink[];
  /** The chain goes on past the links answered (at most 32). */
  truncated: boolean;
}

/** An off-chain attestation put on chain: answered as an on-chain create, naming its original. */
export interface PromotedAttestation extends CreatedAttestation {
  offchainUid: string;
}

/** A batch promotion's members in request order: each its on-chain attestation, or why it was refused. */
export interface PromotionBatchResult {
  results: Array<{
    offchainUid: string;
    attestation: PromotedAttestation | null;
    error: { code: string; message: string; details: Record<string, unknown> } | null;
  }>;
}

export interface RevokeResult {
  uid: string;
  revoked: true;
  revokedAt: string;
  txHash: string | null;
}

export * from './webhook-types.ts';
export * from './service-types.ts';

/** The API's public types, written out so the published package needs no server code; test/router-types.ts proves they equal the router's. */

export type Origin = 'human' | 'ai';
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
  /** The account that proved control of the address by a signed challenge; null for the service. */
  accountName: string | null;
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
  txHash: string | null;
  blockNumber: number | null;
  /** ISO 8601 */
  createdAt: string;
  revoked: boolean;
  revokedAt: string | null;
  revocationTxHash: string | null;
  verifyUrl: string;
  offchain: OffchainPackage | null;
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
  attestations: CreatedAttestation[];
}

export interface RevokeResult {
  uid: string;
  revoked: true;
  revokedAt: string;
  txHash: string | null;
}

export * from './webhook-types.ts';

/** One audit entry, as exported; `hash` = SHA-256 of prevHash + "\n" + the canonical entry (docs/audit.md). */
export interface AuditEntry {
  /** Position in the log, increasing in chain order (a bigint, as a string). */
  id: string;
  accountId: string;
  /** ISO 8601 with milliseconds, UTC. */
  at: string;
  action: string;
  actorKeyPrefix: string | null;
  resource: string;
  outcome: string;
  ip: string | null;
  requestId: string | null;
  details: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

export interface AuditExportInput {
  /** Inclusive start (default: 30 days before `to`). */
  from?: string | Date;
  /** Exclusive end (default: now); at most 366 days after `from`. */
  to?: string | Date;
  /** Only entries of this action, e.g. `attestation.created`. */
  action?: string;
  /** Stops the download. */
  signal?: AbortSignal;
}

/** How a part the service can serve without stands: `degraded` while it fails, `unknown` when it cannot be told. */
export type ComponentState = 'ok' | 'degraded' | 'unknown';

/** `GET /healthz`: always answered while the process lives; `degraded` names what on-chain writes wait for. */
export interface Health {
  status: 'ok' | 'degraded';
  /** `chain` (its RPC answers) and `relayer` (its balance is above the minimum). */
  components: Record<string, ComponentState>;
  /** Why each component that is not `ok` is not. */
  reasons: Record<string, string>;
}

/** `GET /readyz`: this replica can serve its traffic (its database, and Redis where the limits live). */
export interface Readiness {
  status: 'ready';
  components: Record<string, 'ok'>;
}

/** A sliding minute, as `usage()` reads it (the call itself counted). */
export interface RateUsage {
  limit: number;
  remaining: number;
  windowSeconds: number;
  /** Seconds until a slot frees up (0: the window is empty). */
  resetsInSeconds: number;
}

/** This UTC month's on-chain quota; `limit` and `remaining` null when unlimited. */
export interface QuotaUsage {
  /** `YYYY-MM` */
  period: string;
  used: number;
  limit: number | null;
  remaining: number | null;
  /** The first millisecond of the next UTC month, ms since the epoch. */
  resetsAt: number;
}

/** `GET /v1/usage`: the calling key's limits and use, and its account's (which bind all its keys together). */
export interface Usage {
  key: { prefix: string; tier: 'free' | 'pro' | 'enterprise'; rate: RateUsage; onchain: QuotaUsage };
  account: { name: string; plan: 'free' | 'pro' | 'enterprise'; rate: RateUsage; onchain: QuotaUsage };
}

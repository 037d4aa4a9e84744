/** The audit export's, the probes' and usage's public types (re-exported by types.ts). */

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

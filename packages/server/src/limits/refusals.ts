import type { Tier } from '../keys/format.ts';

/** Told of every request the limits refuse (the metrics count them: limits/metrics.ts). */
export interface RefusalObserver {
  /** A 429 RATE_LIMITED, by the bucket that was full: an API key's (or a dashboard member's), or a client IP's. */
  rateLimited(policy: 'key' | 'ip'): void;
  /** A 429 QUOTA_EXCEEDED, by the key's tier. */
  quotaRefused(tier: Tier): void;
}

/** What the limits are handed when no metrics run. */
export const UNOBSERVED: RefusalObserver = { rateLimited: () => undefined, quotaRefused: () => undefined };

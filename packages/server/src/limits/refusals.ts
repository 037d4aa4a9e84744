import type { Tier } from '../keys/format.ts';

/** Told of every request the limits refuse (the metrics count them: limits/metrics.ts). */
export interface RefusalObserver {
  /** A 429 RATE_LIMITED, by the bucket that was full: an API key's (or a member's), its account's, or an IP's. */
  rateLimited(policy: 'key' | 'account' | 'ip'): void;
  /** A 429 QUOTA_EXCEEDED, by the tier that bound (the key's, or the account's plan). */
  quotaRefused(tier: Tier): void;
}

/** What the limits are handed when no metrics run. */
export const UNOBSERVED: RefusalObserver = { rateLimited: () => undefined, quotaRefused: () => undefined };

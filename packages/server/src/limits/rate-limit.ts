import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { Tier } from '../keys/format.ts';
import { UNOBSERVED, type RefusalObserver } from './refusals.ts';
import type { WindowDecision, WindowStore } from './sliding-window.ts';

/** Requests per sliding minute: per key by tier, and per client IP for anonymous calls. */
export const RATE_LIMITS: Record<Tier | 'anonymous', number> = { free: 30, pro: 600, enterprise: 6000, anonymous: 30 };
export const WINDOW_SECONDS = 60;

type Policy = 'key' | 'ip';

export interface RateLimitResult {
  decision: WindowDecision;
  headers: Record<string, string>;
}

/** The IETF draft fields (draft-ietf-httpapi-ratelimit-headers) for a decision. */
export function rateLimitHeaders(policy: Policy, decision: WindowDecision): Record<string, string> {
  return {
    'RateLimit-Policy': `"${policy}";q=${decision.limit};w=${WINDOW_SECONDS}`,
    RateLimit: `"${policy}";r=${decision.remaining};t=${Math.ceil(decision.resetMs / 1000)}`,
  };
}

function limited(policy: Policy, decision: WindowDecision, headers: Record<string, string>): AppError {
  const retryAfterSeconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
  const who = policy === 'key' ? 'this API key' : 'anonymous calls from your address';
  return new AppError(
    'RATE_LIMITED',
    `Too many requests: ${who} may make ${decision.limit} per minute. Retry in ${retryAfterSeconds} s.`,
    { limit: decision.limit, windowSeconds: WINDOW_SECONDS, retryAfterSeconds },
    { ...headers, 'Retry-After': String(retryAfterSeconds) },
  );
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** Counts a request against its bucket; throws 429 RATE_LIMITED (with Retry-After) when the window is full. */
export function createRateLimiter(store: WindowStore, clock: Clock, refusals: RefusalObserver = UNOBSERVED) {
  async function take(policy: Policy, bucket: string, limit: number): Promise<Record<string, string>> {
    const decision = await store.hit(`${policy}:${bucket}`, limit, WINDOW_SECONDS * 1000, clock.now());
    const headers = rateLimitHeaders(policy, decision);
    if (!decision.allowed) {
      refusals.rateLimited(policy);
      throw limited(policy, decision, headers);
    }
    return headers;
  }
  return {
    /** An authenticated call, in its key's bucket. */
    forKey: (prefix: string, tier: Tier) => take('key', prefix, RATE_LIMITS[tier]),
    /** An anonymous call (or one whose key failed), in its client IP's bucket. */
    forIp: (ip: string) => take('ip', ip, RATE_LIMITS.anonymous),
  };
}

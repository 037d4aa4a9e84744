import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { Tier } from '../keys/format.ts';
import { clientNetworkOf, DEFAULT_IPV6_PREFIX } from './client-network.ts';
import { UNOBSERVED, type RefusalObserver } from './refusals.ts';
import type { WindowDecision, WindowStore } from './sliding-window.ts';

/** Requests per sliding minute: per key by tier, and per client IP for anonymous calls. */
export const RATE_LIMITS: Record<Tier | 'anonymous', number> = { free: 30, pro: 600, enterprise: 6000, anonymous: 30 };
export const WINDOW_SECONDS = 60;
/** An account's keys together may make this many times its plan's per-key rate (docs/decisions.md). */
export const ACCOUNT_RATE_FACTOR = 2;

type Policy = 'key' | 'account' | 'ip';

/** The account a key belongs to and the tier whose rate sets its ceiling (keys/service.ts: `accountTier`). */
interface RateAccount {
  accountId: string;
  accountTier: Tier;
}

/** The IETF draft fields (draft-ietf-httpapi-ratelimit-headers) for a decision. */
function rateLimitHeaders(policy: Policy, decision: WindowDecision): Record<string, string> {
  return {
    'RateLimit-Policy': `"${policy}";q=${decision.limit};w=${WINDOW_SECONDS}`,
    RateLimit: `"${policy}";r=${decision.remaining};t=${Math.ceil(decision.resetMs / 1000)}`,
  };
}

function limited(policy: Policy, decision: WindowDecision, headers: Record<string, string>): AppError {
  const retryAfterSeconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
  const who = { key: 'this API key', account: "this account's keys together", ip: 'anonymous calls from your address' };
  return new AppError(
    'RATE_LIMITED',
    `Too many requests: ${who[policy]} may make ${decision.limit} per minute. Retry in ${retryAfterSeconds} s.`,
    { limit: decision.limit, windowSeconds: WINDOW_SECONDS, retryAfterSeconds, scope: policy },
    { ...headers, 'Retry-After': String(retryAfterSeconds) },
  );
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** Told of each window a call was counted in, with its decision (GET /v1/usage answers them). */
type RateSeen = (policy: 'key' | 'account' | 'ip', decision: WindowDecision) => void;

/** Counts a request against its bucket; throws 429 RATE_LIMITED (with Retry-After) when the window is full. */
export function createRateLimiter(
  store: WindowStore,
  clock: Clock,
  refusals: RefusalObserver = UNOBSERVED,
  opts: { ipv6Prefix?: number } = {},
) {
  const ipv6Prefix = opts.ipv6Prefix ?? DEFAULT_IPV6_PREFIX;
  async function take(policy: Policy, bucket: string, limit: number, seen?: RateSeen): Promise<Record<string, string>> {
    const decision = await store.hit(`${policy}:${bucket}`, limit, WINDOW_SECONDS * 1000, clock.now());
    seen?.(policy, decision);
    const headers = rateLimitHeaders(policy, decision);
    if (!decision.allowed) {
      refusals.rateLimited(policy);
      throw limited(policy, decision, headers);
    }
    return headers;
  }
  return {
    /**
     * An authenticated call, in its key's bucket, then (when given) its account's, whose ceiling is
     * ACCOUNT_RATE_FACTOR times the rate of the account's tier: more keys do not make more rate. The headers are the
     * key's; a call the account's ceiling refuses answers the account's.
     */
    async forKey(prefix: string, tier: Tier, account?: RateAccount, seen?: RateSeen): Promise<Record<string, string>> {
      const headers = await take('key', prefix, RATE_LIMITS[tier], seen);
      if (account)
        await take('account', account.accountId, RATE_LIMITS[account.accountTier] * ACCOUNT_RATE_FACTOR, seen);
      return headers;
    },
    /** An anonymous call (or one whose key failed), in the bucket of its client's network (client-network.ts). */
    forIp: (ip: string) => take('ip', clientNetworkOf(ip, ipv6Prefix), RATE_LIMITS.anonymous),
  };
}

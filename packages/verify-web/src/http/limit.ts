/**
 * The shape of the service's sliding-window store (packages/server/src/limits/sliding-window.ts): the composition
 * root hands its own store in (memory, or Redis shared by replicas), so badge limits work like the API's.
 */
export interface WindowStore {
  hit(
    bucket: string,
    limit: number,
    windowMs: number,
    now: number,
  ): Promise<{ allowed: boolean; limit: number; remaining: number; resetMs: number }>;
}

const WINDOW_MS = 60_000;

export interface LimitVerdict {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfterSeconds: number;
  limit: number;
}

/**
 * Badge calls per client per sliding minute, with the same IETF draft fields the API sends. `bucketOf` names the
 * bucket of an address: the service hands its own rule (an IPv6 client counts by its network, not its address).
 */
export function createBadgeLimiter(
  store: WindowStore,
  limitPerMinute: number,
  now: () => number = Date.now,
  bucketOf: (ip: string) => string = (ip) => ip,
) {
  return async (ip: string): Promise<LimitVerdict> => {
    const decision = await store.hit(`verify-badge:ip:${bucketOf(ip)}`, limitPerMinute, WINDOW_MS, now());
    const resetSeconds = Math.ceil(decision.resetMs / 1000);
    const headers: Record<string, string> = {
      'RateLimit-Policy': `"ip";q=${decision.limit};w=${WINDOW_MS / 1000}`,
      RateLimit: `"ip";r=${decision.remaining};t=${resetSeconds}`,
    };
    const retryAfterSeconds = Math.max(1, resetSeconds);
    if (!decision.allowed) headers['Retry-After'] = String(retryAfterSeconds);
    return { allowed: decision.allowed, headers, retryAfterSeconds, limit: decision.limit };
  };
}

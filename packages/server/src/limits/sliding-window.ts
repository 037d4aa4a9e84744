import type { Redis } from 'ioredis';

/** The verdict on one request against one bucket. */
export interface WindowDecision {
  allowed: boolean;
  limit: number;
  /** Requests still allowed in the window after this one. */
  remaining: number;
  /** Milliseconds until the oldest request in the window leaves it (a slot frees up); 0 when the window is empty. */
  resetMs: number;
}

/**
 * A true sliding window (a sliding log): a request is allowed when fewer than `limit` allowed requests happened
 * in the `windowMs` before it. Refused requests are not recorded, so a client that backs off recovers on time.
 */
export interface WindowStore {
  hit(bucket: string, limit: number, windowMs: number, now: number): Promise<WindowDecision>;
}

/** The most buckets one process keeps; past it, the bucket hit longest ago is forgotten (docs/decisions.md). */
const MEMORY_WINDOW_BUCKETS = 100_000;
/** How often buckets whose every request has left its window are dropped. */
const SWEEP_EVERY_MS = 10_000;

/**
 * One process's windows, in memory: each bucket is its window and its timestamps in order, pruned as they age out.
 * Every client address is a bucket, so their number is bounded: emptied buckets are swept every 10 s (each by its
 * own window: a sign-in bucket lives 15 minutes, an address's one minute), and past `maxBuckets` the least recently
 * hit one goes (the Map keeps buckets in the order of their last hit).
 */
export function memoryWindowStore(opts: { maxBuckets?: number } = {}): WindowStore & { size(): number } {
  const maxBuckets = opts.maxBuckets ?? MEMORY_WINDOW_BUCKETS;
  const buckets = new Map<string, { windowMs: number; log: number[] }>();
  // One iterator walks the buckets oldest first for as long as they are forgotten from the front: a new one per
  // eviction would start at the Map's first slot and step over every slot the evictions before it emptied, until
  // the Map compacts (up to the capacity of another table: tens of µs a request once the cap is reached, measured).
  // A live iterator meets a bucket hit again (moved to the end) only when it gets there, and skips one deleted ahead
  // of it, so its next entry is always the bucket hit longest ago.
  let oldestFirst: Iterator<string> | undefined;
  const forgetOldest = () => {
    let next = (oldestFirst ??= buckets.keys()).next();
    if (next.done) next = (oldestFirst = buckets.keys()).next(); // a finished iterator stays finished
    if (!next.done) buckets.delete(next.value);
  };
  let nextSweep = 0;
  let shortestWindowMs = Number.POSITIVE_INFINITY;
  // oldest hit first: once a bucket was hit within the shortest window, so were all after it, and none is empty yet
  // (a bucket whose hits were refused may stay until a later sweep: `hit` prunes what it finds anyway)
  const sweep = (now: number) => {
    for (const [key, { windowMs, log }] of buckets) {
      const last = log.at(-1) ?? 0;
      if (last <= now - windowMs) buckets.delete(key);
      else if (last > now - shortestWindowMs) break;
    }
  };
  return {
    async hit(bucket, limit, windowMs, now) {
      if (now >= nextSweep) {
        nextSweep = now + SWEEP_EVERY_MS;
        sweep(now);
      }
      if (windowMs < shortestWindowMs) shortestWindowMs = windowMs;
      let entry = buckets.get(bucket);
      if (entry) buckets.delete(bucket);
      else entry = { windowMs, log: [] };
      buckets.set(bucket, entry);
      if (buckets.size > maxBuckets) forgetOldest();
      let { log } = entry;
      let expired = 0;
      while (expired < log.length && log[expired]! <= now - windowMs) expired++;
      if (expired > 0) log.splice(0, expired);
      const allowed = log.length < limit;
      // a first request gets an array of one, not the 17 slots a push grows an empty one to: most buckets hold one
      if (allowed && log.length === 0) log = entry.log = [now];
      else if (allowed) log.push(now);
      const oldest = log[0];
      return {
        allowed,
        limit,
        remaining: Math.max(0, limit - log.length),
        resetMs: oldest === undefined ? 0 : oldest + windowMs - now,
      };
    },
    size: () => buckets.size,
  };
}

// KEYS[1] bucket; ARGV now, window, limit, member. A sorted set of request times, pruned, counted and added to
// atomically, so any number of replicas share one window.
const HIT_SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = 0
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return { allowed, count, reset }
`;

/** Windows shared by every replica through Redis (one atomic Lua script per request). */
export function redisWindowStore(redis: Redis, prefix = 'ratelimit:'): WindowStore {
  let seq = 0;
  const tag = Math.random().toString(36).slice(2, 10);
  return {
    async hit(bucket, limit, windowMs, now) {
      const member = `${now}:${tag}:${++seq}`;
      const [allowed, count, reset] = (await redis.eval(
        HIT_SCRIPT,
        1,
        `${prefix}${bucket}`,
        now,
        windowMs,
        limit,
        member,
      )) as [number, number, number];
      return { allowed: allowed === 1, limit, remaining: Math.max(0, limit - count), resetMs: Math.max(0, reset) };
    },
  };
}

/**
 * A connected Redis client for the shared window store: a fast failure rather than a queue when Redis is away.
 * ioredis is imported here, only when REDIS_URL is set, so a process without Redis does not load it.
 */
export async function connectRedis(url: string): Promise<Redis> {
  const { Redis: Client } = await import('ioredis');
  const redis = new Client(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: false });
  await redis.connect();
  return redis;
}

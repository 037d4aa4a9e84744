import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryWindowStore, redisWindowStore, type WindowStore } from '../../src/limits/sliding-window.ts';
import { startTestRedis, type TestRedis } from '../support/redis.ts';

let server: TestRedis;
let redis: Redis;
beforeAll(async () => {
  server = await startTestRedis();
  redis = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

const MINUTE = 60_000;
const stores: Array<[string, () => Promise<WindowStore>]> = [
  ['memory', async () => memoryWindowStore()],
  [
    'redis',
    async () => {
      if (redis.status === 'wait') await redis.connect();
      return redisWindowStore(redis, `test:${Date.now()}:${Math.random()}:`);
    },
  ],
];

describe.each(stores)('sliding window (%s store)', (_, makeStore) => {
  it('allows 30 in a minute and refuses the 31st', async () => {
    const store = await makeStore();
    const t0 = 1_800_000_000_000;
    for (let i = 0; i < 30; i++) expect((await store.hit('k', 30, MINUTE, t0 + i)).allowed).toBe(true);
    const refused = await store.hit('k', 30, MINUTE, t0 + 30);
    expect(refused).toEqual({ allowed: false, limit: 30, remaining: 0, resetMs: MINUTE - 30 });
  });

  it('frees exactly the slots whose requests left the window: 15 at t=0 and 15 at t=30 s leave 15 free at t=60 s', async () => {
    const store = await makeStore();
    const t0 = 1_800_000_000_000;
    for (let i = 0; i < 15; i++) expect((await store.hit('k', 30, MINUTE, t0)).allowed).toBe(true);
    for (let i = 0; i < 15; i++) expect((await store.hit('k', 30, MINUTE, t0 + 30_000)).allowed).toBe(true);
    // 30 s after the second group the window still holds all 30: nothing is free, and a slot frees in 30 s
    expect(await store.hit('k', 30, MINUTE, t0 + 30_000)).toMatchObject({
      allowed: false,
      remaining: 0,
      resetMs: 30_000,
    });
    // one millisecond before t=60 s the first group is still inside the window
    expect((await store.hit('k', 30, MINUTE, t0 + MINUTE - 1)).allowed).toBe(false);
    // at t=60 s the first 15 are a full minute old and out; the 15 from t=30 s are still in: exactly 15 are free
    let allowed = 0;
    for (let i = 0; i < 20; i++) if ((await store.hit('k', 30, MINUTE, t0 + MINUTE)).allowed) allowed++;
    expect(allowed).toBe(15);
    // a fixed-window counter would have reset at t=60 s and allowed all 20; the refused 5 were not recorded
    expect(await store.hit('k', 30, MINUTE, t0 + 90_000)).toMatchObject({ allowed: true, remaining: 14 });
  });

  it('keeps buckets apart', async () => {
    const store = await makeStore();
    const t0 = 1_800_000_000_000;
    for (let i = 0; i < 3; i++) await store.hit('a', 3, MINUTE, t0);
    expect((await store.hit('a', 3, MINUTE, t0)).allowed).toBe(false);
    expect((await store.hit('b', 3, MINUTE, t0)).allowed).toBe(true);
  });
});

describe('sliding window (memory store) bounds', () => {
  it('drops a bucket once its requests left its own window, and keeps a longer window whole', async () => {
    const store = memoryWindowStore();
    const t0 = 1_800_000_000_000;
    for (let i = 0; i < 3; i++) await store.hit('signin', 3, 15 * MINUTE, t0);
    await store.hit('ip', 30, MINUTE, t0);
    // two minutes on, a sweep runs: the address's bucket is gone, the sign-in one still refuses
    await store.hit('other', 30, MINUTE, t0 + 2 * MINUTE);
    expect(store.size()).toBe(2);
    expect((await store.hit('signin', 3, 15 * MINUTE, t0 + 2 * MINUTE)).allowed).toBe(false);
  });

  it('sweeps past a longer window kept whole to the empty buckets behind it, and stops at the recent ones', async () => {
    const store = memoryWindowStore();
    const t0 = 1_800_000_000_000;
    await store.hit('signin', 3, 15 * MINUTE, t0);
    for (let i = 0; i < 50; i++) await store.hit(`old-${i}`, 30, MINUTE, t0 + 1_000 + i);
    await store.hit('recent', 30, MINUTE, t0 + 90_000);
    await store.hit('other', 30, MINUTE, t0 + 2 * MINUTE);
    // the sign-in bucket, the recent address and the one that swept
    expect(store.size()).toBe(3);
    expect((await store.hit('recent', 1, MINUTE, t0 + 2 * MINUTE)).allowed).toBe(false);
  });

  it('holds at most maxBuckets, forgetting the bucket hit longest ago', async () => {
    const store = memoryWindowStore({ maxBuckets: 3 });
    const t0 = 1_800_000_000_000;
    await store.hit('a', 1, MINUTE, t0);
    await store.hit('b', 1, MINUTE, t0);
    await store.hit('c', 1, MINUTE, t0);
    expect((await store.hit('a', 1, MINUTE, t0 + 1)).allowed).toBe(false); // a is now the most recent
    await store.hit('d', 1, MINUTE, t0 + 2);
    expect(store.size()).toBe(3);
    expect((await store.hit('a', 1, MINUTE, t0 + 3)).allowed).toBe(false);
    expect((await store.hit('b', 1, MINUTE, t0 + 3)).allowed).toBe(true); // b was forgotten
  });

  it('forgets the bucket hit longest ago through any number of evictions, as a plain LRU model does', async () => {
    // many more buckets than it holds, with re-hits of old ones: the Map empties slots, compacts and grows under it
    const max = 500;
    const store = memoryWindowStore({ maxBuckets: max });
    const model = new Map<string, true>();
    const t0 = 1_800_000_000_000;
    let seed = 7;
    const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    for (let i = 0; i < 20_000; i++) {
      const key = random() < 0.3 ? `k${Math.floor(random() * i)}` : `k${i}`;
      await store.hit(key, 1, MINUTE, t0 + i);
      model.delete(key);
      model.set(key, true);
      if (model.size > max) model.delete(model.keys().next().value!);
    }
    expect(store.size()).toBe(max);
    // every bucket the model remembers is remembered, oldest first (a remembered one moves to the end: no eviction)
    for (const key of model.keys()) expect((await store.hit(key, 1, MINUTE, t0 + 30_000)).allowed).toBe(false);
    const forgotten = Array.from({ length: 20_000 }, (_, i) => `k${i}`).find((key) => !model.has(key))!;
    expect((await store.hit(forgotten, 1, MINUTE, t0 + 30_000)).allowed).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { createTtlCache } from '../src/verdict/cache.ts';

describe('the verdict cache', () => {
  it('forgets the entry set longest ago through any number of evictions, as a plain LRU model does', async () => {
    // many more keys than it holds, with lookups of old ones: the Map empties slots, compacts and grows under it
    const max = 300;
    const cache = createTtlCache<number>({ ttlMs: 60_000, maxEntries: max, now: () => 0 });
    const model = new Map<string, true>();
    let seed = 11;
    const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    for (let i = 0; i < 10_000; i++) {
      const key = random() < 0.3 ? `k${Math.floor(random() * i)}` : `k${i}`;
      let loaded = false;
      await cache.get(key, async () => ((loaded = true), i));
      // a key still held is served from the cache and keeps its place; a new or forgotten one is loaded and set
      expect(loaded).toBe(!model.has(key));
      if (loaded) {
        model.set(key, true);
        if (model.size > max) model.delete(model.keys().next().value!);
      }
    }
    // every key the model holds is served without a load
    for (const key of model.keys()) {
      let loaded = false;
      await cache.get(key, async () => ((loaded = true), -1));
      expect(loaded).toBe(false);
    }
  });
});

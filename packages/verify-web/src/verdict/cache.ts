/**
 * A small time-bounded cache with single flight: concurrent lookups of one key share one promise, and a
 * settled value is reused for `ttlMs`. Rejected lookups are forgotten at once. Oldest entries go first past
 * `maxEntries` (a Map keeps insertion order).
 */
export function createTtlCache<T>(opts: { ttlMs: number; maxEntries: number; now?: () => number }) {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, { at: number; value: Promise<T> }>();
  // one live iterator forgets entries oldest first: a new one per eviction would step over every slot the evictions
  // before it emptied, up to a table's capacity per lookup once the cache is full (a live iterator skips each once)
  let oldestFirst: Iterator<string> | undefined;
  const forgetOldest = () => {
    let next = (oldestFirst ??= entries.keys()).next();
    if (next.done) next = (oldestFirst = entries.keys()).next(); // a finished iterator stays finished
    if (!next.done) entries.delete(next.value);
  };
  return {
    get(key: string, load: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
      const hit = entries.get(key);
      if (hit && now() - hit.at < opts.ttlMs) return hit.value;
      entries.delete(key);
      const value = load();
      entries.set(key, { at: now(), value });
      if (entries.size > opts.maxEntries) forgetOldest();
      value.then(
        (settled) => {
          if (!keep(settled) && entries.get(key)?.value === value) entries.delete(key);
        },
        () => {
          if (entries.get(key)?.value === value) entries.delete(key);
        },
      );
      return value;
    },
    /** Drops a key's value, so the next `get` loads it afresh. */
    forget(key: string): void {
      entries.delete(key);
    },
  };
}

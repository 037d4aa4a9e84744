/**
 * A small time-bounded cache with single flight: concurrent lookups of one key share one promise, and a
 * settled value is reused for `ttlMs`. Rejected lookups are forgotten at once. Oldest entries go first past
 * `maxEntries` (a Map keeps insertion order).
 */
export function createTtlCache<T>(opts: { ttlMs: number; maxEntries: number; now?: () => number }) {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, { at: number; value: Promise<T> }>();
  return {
    get(key: string, load: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
      const hit = entries.get(key);
      if (hit && now() - hit.at < opts.ttlMs) return hit.value;
      entries.delete(key);
      const value = load();
      entries.set(key, { at: now(), value });
      if (entries.size > opts.maxEntries) entries.delete(entries.keys().next().value!);
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

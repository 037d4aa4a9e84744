import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { recordLastUses } from './store.ts';

/**
 * A key's last use is recorded at most this often (docs/decisions.md, "Dashboard sign-in": never a write per request).
 */
const LAST_USE_RESOLUTION_MS = 60_000;

/** How often the recorded uses go to the database in one statement. */
const LAST_USE_FLUSH_MS = 30_000;

export interface LastUseRecorder {
  /** Notes a successful authentication of this key (memory only). */
  touch(keyId: string): void;
  /** The use noted but not yet written, if any: the dashboard shows it before the next flush does. */
  pending(keyId: string): Date | undefined;
  /** Writes the noted uses in one UPDATE; a failed write keeps them for the next flush. */
  flush(): Promise<void>;
}

/**
 * `api_keys.last_used_at` without a write per request: a key's uses within a minute of the last one noted are not
 * noted at all, and the noted ones are written together by flush(). The UPDATE skips a row whose stored time is
 * already within the minute, so replicas of the API do not write one key once each.
 */
export function createLastUseRecorder(db: Db, clock: Clock): LastUseRecorder {
  let pending = new Map<string, number>();
  const noted = new Map<string, number>();
  return {
    touch(keyId) {
      const now = clock.now();
      const last = noted.get(keyId);
      if (last !== undefined && now - last < LAST_USE_RESOLUTION_MS) return;
      noted.set(keyId, now);
      pending.set(keyId, now);
    },
    pending(keyId) {
      const at = pending.get(keyId);
      return at === undefined ? undefined : new Date(at);
    },
    async flush() {
      if (pending.size === 0) return;
      const batch = pending;
      pending = new Map();
      try {
        const uses = [...batch].map(([id, at]) => ({ id, lastUsedAt: new Date(at) }));
        await recordLastUses(db, uses, LAST_USE_RESOLUTION_MS);
      } catch (error) {
        // newer uses noted meanwhile win over the ones that failed to be written
        for (const [id, at] of batch) if (!pending.has(id)) pending.set(id, at);
        throw error;
      }
      // forget what is older than the resolution, so the map holds only the keys used in the last minute
      const now = clock.now();
      for (const [id, at] of noted) if (now - at >= LAST_USE_RESOLUTION_MS) noted.delete(id);
    },
  };
}

/** Flushes every `everyMs` until the returned stop, which flushes once more (the uses of the last requests). */
export function flushPeriodically(recorder: LastUseRecorder, log: Logger, everyMs = LAST_USE_FLUSH_MS) {
  let running = Promise.resolve();
  // one flush at a time: the last one at stop waits for a periodic one under way, so none outlives the pool
  const flush = (): void => {
    running = running.then(() =>
      recorder.flush().catch((error: unknown) => log.warn({ error: describeError(error) }, 'last-use flush failed')),
    );
  };
  const timer = setInterval(flush, everyMs);
  timer.unref();
  return async (): Promise<void> => {
    clearInterval(timer);
    flush();
    await running;
  };
}

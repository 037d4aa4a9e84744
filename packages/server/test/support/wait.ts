import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** How long to keep looking, in ms (default 10 s). */
  timeout?: number;
  /** How long between looks, in ms (default 50). */
  interval?: number;
  /** What is awaited, named in the error when it never comes. */
  what?: string;
}

/**
 * Polls `read` until it gives something other than `undefined` or `false`, and returns that: a test waits for the
 * condition it needs, not for a guess at how long that takes. Throws once `timeout` has passed without it. (A fixed
 * sleep is only for a test about the passage of time itself, and says so.)
 */
export async function waitFor<T>(
  read: () => T | Promise<T>,
  opts: WaitOptions = {},
): Promise<Exclude<T, undefined | false>> {
  const { timeout = 10_000, interval = 50, what = 'the condition' } = opts;
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== false) return value as Exclude<T, undefined | false>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await sleep(interval);
  }
}

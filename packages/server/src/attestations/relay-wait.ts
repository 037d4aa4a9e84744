import { setTimeout as sleep } from 'node:timers/promises';
import type { AppError } from '../errors.ts';

/** How a write handed to the relayer stands when looked at. */
type Relayed<T> = { state: 'pending' } | { state: 'done'; value: T } | { state: 'failed'; reason: string | null };

const POLL_MS = 150;

/**
 * The one wait of a request for the relayer (create, batch, revoke): looks until the write is done; throws the
 * request's 503 when it failed or is still pending after `waitMs` (real time: a test's clock does not move).
 */
export async function waitForRelayer<T>(
  look: () => Promise<Relayed<T>>,
  opts: { waitMs: number; failed(reason: string | null): AppError; stillPending(): AppError },
): Promise<T> {
  const deadline = Date.now() + opts.waitMs;
  for (;;) {
    const now = await look();
    if (now.state === 'done') return now.value;
    if (now.state === 'failed') throw opts.failed(now.reason);
    if (Date.now() >= deadline) throw opts.stillPending();
    await sleep(POLL_MS);
  }
}

import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { deleteExpiredVerifications } from './session-store.ts';

/** How often the worker deletes better-auth's expired rows. */
const AUTH_CLEANUP_EVERY_MS = 60_000;

/**
 * Runs deleteExpiredVerifications now and every AUTH_CLEANUP_EVERY_MS; returns the function that stops it. Passkey
 * challenges live five minutes: an anonymous request for passkey options writes one, and better-auth deletes expired
 * ones only when a challenge is answered.
 */
export function cleanUpAuthPeriodically(deps: { db: Db; clock: Clock; log: Logger }): () => Promise<void> {
  const run = (): void => {
    deleteExpiredVerifications(deps.db, new Date(deps.clock.now())).catch((error: unknown) =>
      deps.log.warn({ error: describeError(error) }, 'auth cleanup failed'),
    );
  };
  run();
  const timer = setInterval(run, AUTH_CLEANUP_EVERY_MS);
  return async () => clearInterval(timer);
}

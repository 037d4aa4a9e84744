import type { Clock } from '../clock.ts';
import type { Db } from '../db/prisma.ts';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';

/** How often the worker deletes better-auth's expired rows. */
export const AUTH_CLEANUP_EVERY_MS = 60_000;

/**
 * Deletes better-auth's verification rows past their expiry (passkey challenges live five minutes): an anonymous
 * request for passkey options writes one, and better-auth deletes expired ones only when a challenge is answered.
 * Returns how many went.
 */
export async function deleteExpiredVerifications(db: Db, now: Date): Promise<number> {
  const { count } = await db.verification.deleteMany({ where: { expiresAt: { lt: now } } });
  return count;
}

/** Runs deleteExpiredVerifications now and every AUTH_CLEANUP_EVERY_MS; returns the function that stops it. */
export function cleanUpAuthPeriodically(deps: { db: Db; clock: Clock; log: Logger }): () => Promise<void> {
  const run = () =>
    deleteExpiredVerifications(deps.db, new Date(deps.clock.now())).catch((error: unknown) =>
      deps.log.warn({ error: describeError(error) }, 'auth cleanup failed'),
    );
  void run();
  const timer = setInterval(run, AUTH_CLEANUP_EVERY_MS);
  return async () => clearInterval(timer);
}

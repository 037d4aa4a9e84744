import type { Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { lockAccount } from '../accounts/store.ts';
import { pendingChallenges } from './store.ts';

/**
 * Unused, unexpired challenges an account may hold at once: a registration needs one, a few cover retries and
 * several addresses, and each is a row (docs/decisions.md, "Customer attesters").
 */
export const MAX_PENDING_CHALLENGES = 20;

/**
 * Refuses a new challenge once the account holds MAX_PENDING_CHALLENGES, with 429 RATE_LIMITED until the first of
 * them expires; call it in the transaction that inserts the challenge.
 */
export async function assertRoomForChallenge(tx: Db, accountId: string, now: Date, ttlMs: number): Promise<void> {
  // concurrent challenges of one account are counted one after the other
  await lockAccount(tx, accountId, 'update');
  const { pending, firstExpiry } = await pendingChallenges(tx, accountId, now);
  if (pending < MAX_PENDING_CHALLENGES) return;
  const retryAfterSeconds = Math.max(1, Math.ceil(((firstExpiry?.getTime() ?? now.getTime()) - now.getTime()) / 1000));
  throw new AppError(
    'RATE_LIMITED',
    `An account may hold ${MAX_PENDING_CHALLENGES} unused challenges at once; use one, or retry in ` +
      `${retryAfterSeconds} s when the first expires.`,
    { limit: MAX_PENDING_CHALLENGES, windowSeconds: ttlMs / 1000, retryAfterSeconds, scope: 'account' },
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

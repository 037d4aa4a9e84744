import type { Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { lockAccount } from '../accounts/store.ts';
import { countActiveKeys } from './store.ts';

/** Active (unrevoked) keys an account may hold at once, minted by members or the CLI (docs/decisions.md). */
export const MAX_ACTIVE_KEYS = 50;

/** Refuses a new key once the account holds MAX_ACTIVE_KEYS; call it in the transaction that inserts the key. */
export async function assertRoomForKey(tx: Db, accountId: string): Promise<void> {
  await lockAccount(tx, accountId);
  if ((await countActiveKeys(tx, accountId)) < MAX_ACTIVE_KEYS) return;
  const message = `at most ${MAX_ACTIVE_KEYS} active API keys`;
  throw new AppError('VALIDATION_FAILED', `An account may have ${message}; revoke one first.`, {
    errors: [{ path: '', message }],
  });
}

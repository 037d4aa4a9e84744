import type { Db } from '../db/database.ts';
import { deleteSessionsBeyond } from './session-store.ts';

/** Live sessions a person may hold at once (docs/decisions.md, "Caps per account"). */
export const MAX_SESSIONS_PER_USER = 10;

/** Ends a person's oldest sessions beyond MAX_SESSIONS_PER_USER: a sign-in past the cap signs out the oldest device. */
export async function capSessions(db: Db, userId: string): Promise<void> {
  await deleteSessionsBeyond(db, userId, MAX_SESSIONS_PER_USER);
}

import type { Db } from '../db/prisma.ts';

/** Live sessions a person may hold at once (docs/decisions.md, "Caps per account"). */
export const MAX_SESSIONS_PER_USER = 10;

/** Ends a person's oldest sessions beyond MAX_SESSIONS_PER_USER: a sign-in past the cap signs out the oldest device. */
export async function capSessions(db: Db, userId: string): Promise<void> {
  await db.$executeRaw`DELETE FROM sessions WHERE id IN (
    SELECT id FROM sessions WHERE user_id = ${userId} ORDER BY created_at DESC, id DESC OFFSET ${MAX_SESSIONS_PER_USER})`;
}

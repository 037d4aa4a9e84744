import type { Db } from '../db/database.ts';

// better-auth's tables, where the service reads or ends sessions itself (better-auth's own queries go through its
// Kysely adapter on the same database: dashboard/better-auth.ts).

/** A person's sessions still in force (neither idle- nor absolutely expired), newest first; never their tokens. */
export async function liveSessionsOf(db: Db, userId: string, now: Date, createdAfter: Date) {
  return db
    .selectFrom('sessions')
    .select(['id', 'ipAddress', 'userAgent', 'createdAt', 'updatedAt', 'expiresAt'])
    .where('userId', '=', userId)
    .where('expiresAt', '>', now)
    .where('createdAt', '>', createdAfter)
    .orderBy('createdAt', 'desc')
    .execute();
}

/** Ends one of a person's sessions; false when they have no session of that id. */
export async function deleteSessionOf(db: Db, userId: string, sessionId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('sessions')
    .where('id', '=', sessionId)
    .where('userId', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Ends a session, whoever's it is (one past its absolute age). */
export async function deleteSession(db: Db, sessionId: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', sessionId).execute();
}

/** Ends a person's sessions but the newest `keep` (by creation, then id). */
export async function deleteSessionsBeyond(db: Db, userId: string, keep: number): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('sessions')
        .select('id')
        .where('userId', '=', userId)
        .orderBy('createdAt', 'desc')
        .orderBy('id', 'desc')
        .offset(keep),
    )
    .execute();
}

/** Deletes better-auth's verification rows that expired before `now`; how many went. */
export async function deleteExpiredVerifications(db: Db, now: Date): Promise<number> {
  const result = await db.deleteFrom('verifications').where('expiresAt', '<', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

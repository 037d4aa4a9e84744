import type { Db } from '../db/prisma.ts';

/** A person's sessions still in force (neither idle- nor absolutely expired), newest first; never their tokens. */
export async function liveSessionsOf(db: Db, userId: string, now: Date, createdAfter: Date) {
  return db.session.findMany({
    where: { userId, expiresAt: { gt: now }, createdAt: { gt: createdAfter } },
    select: { id: true, ipAddress: true, userAgent: true, createdAt: true, updatedAt: true, expiresAt: true },
    orderBy: { createdAt: 'desc' },
  });
}

/** Ends one of a person's sessions; false when they have no session of that id. */
export async function deleteSessionOf(db: Db, userId: string, sessionId: string): Promise<boolean> {
  const { count } = await db.session.deleteMany({ where: { id: sessionId, userId } });
  return count > 0;
}

import type { Db } from '../db/database.ts';

/** Whether the user confirmed their email address (better-auth's flag). */
export async function addressConfirmed(db: Db, userId: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('emailVerified').where('id', '=', userId).executeTakeFirst();
  return row?.emailVerified === true;
}

export async function joinSupportTeam(db: Db, userId: string): Promise<void> {
  await db.updateTable('users').set({ support: true }).where('id', '=', userId).execute();
}

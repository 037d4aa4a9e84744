import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.ts';
import type { Role } from './roles.ts';

// The members table: a person's role in an account, and the notifications they chose there. A change of an account's
// members holds the account first (store.ts, lockAccount), so two owners demoting each other at once cannot leave it
// with none.

/** Which notifications a member chose: the `members` columns. */
type Preference = 'quota' | 'webhooks';
const COLUMN = { quota: 'm.notifyQuota', webhooks: 'm.notifyWebhooks' } as const satisfies Record<Preference, string>;

/** Where a page of members starts: after the member who joined at `createdAt` with this row id. */
interface MemberPosition {
  createdAt: Date;
  id: string;
}

/** A page of an account's members with their names and emails, oldest first (by time, then row id). */
export async function listMembers(db: Db, accountId: string, page: { after?: MemberPosition; limit: number }) {
  const { after } = page;
  return db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select(['m.id', 'm.userId', 'm.role', 'm.createdAt', 'u.name', 'u.email'])
    .where('m.accountId', '=', accountId)
    .$if(after !== undefined, (query) =>
      query.where((eb) =>
        eb.or([
          eb('m.createdAt', '>', after!.createdAt),
          eb.and([eb('m.createdAt', '=', after!.createdAt), eb('m.id', '>', after!.id)]),
        ]),
      ),
    )
    .orderBy('m.createdAt', 'asc')
    .orderBy('m.id', 'asc')
    .limit(page.limit)
    .execute();
}

/** The account's membership of this user, with the user's email. */
export async function findMember(db: Db, accountId: string, userId: string) {
  return db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select(['m.id', 'm.role', 'u.email'])
    .where('m.accountId', '=', accountId)
    .where('m.userId', '=', userId)
    .executeTakeFirst();
}

export async function countOwners(db: Db, accountId: string): Promise<number> {
  const { n } = await db
    .selectFrom('members')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('accountId', '=', accountId)
    .where('role', '=', 'owner' satisfies Role)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** The user id of the account's member with this email (in any case), if one has it. */
export async function memberByEmail(db: Db, accountId: string, email: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select('m.userId')
    .where('m.accountId', '=', accountId)
    .where((eb) => eb(eb.fn('lower', ['u.email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  return row?.userId;
}

/** Adds a membership; false when the user already belongs to the account (the unique index decides). */
export async function insertMember(db: Db, row: { accountId: string; userId: string; role: Role }): Promise<boolean> {
  const result = await db
    .insertInto('members')
    .values({ id: randomUUID(), ...row })
    .onConflict((conflict) => conflict.doNothing())
    .executeTakeFirst();
  return result.numInsertedOrUpdatedRows === 1n;
}

export async function updateRole(tx: Db, id: string, role: Role): Promise<void> {
  await tx.updateTable('members').set({ role }).where('id', '=', id).execute();
}

export async function deleteMember(tx: Db, id: string): Promise<void> {
  await tx.deleteFrom('members').where('id', '=', id).execute();
}

/** A user's memberships, oldest first, with each account's name and plan. */
export async function membershipsOf(db: Db, userId: string) {
  return db
    .selectFrom('members as m')
    .innerJoin('accounts as a', 'a.id', 'm.accountId')
    .select(['m.accountId', 'm.role', 'a.name as accountName', 'a.plan'])
    .where('m.userId', '=', userId)
    .orderBy('m.createdAt', 'asc')
    .execute();
}

/** The confirmed addresses of an account's members who chose this notification, oldest member first. */
export async function notifiedAddresses(db: Db, accountId: string, preference: Preference): Promise<string[]> {
  const rows = await db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select('u.email')
    .where('m.accountId', '=', accountId)
    .where(COLUMN[preference], '=', true)
    .where('u.emailVerified', '=', true)
    .orderBy('m.createdAt')
    .execute();
  return rows.map((r) => r.email);
}

/** The notifications a member chose in an account (none for someone who is not a member). */
export async function notificationPreferences(db: Db, accountId: string, userId: string) {
  const row = await db
    .selectFrom('members')
    .select(['notifyQuota as quota', 'notifyWebhooks as webhooks'])
    .where('accountId', '=', accountId)
    .where('userId', '=', userId)
    .executeTakeFirst();
  return row ?? { quota: false, webhooks: false };
}

export async function setNotificationPreferences(
  db: Db,
  accountId: string,
  userId: string,
  prefs: { quota: boolean; webhooks: boolean },
): Promise<void> {
  await db
    .updateTable('members')
    .set({ notifyQuota: prefs.quota, notifyWebhooks: prefs.webhooks })
    .where('accountId', '=', accountId)
    .where('userId', '=', userId)
    .execute();
}

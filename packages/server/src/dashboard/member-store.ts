import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.ts';
import type { Role } from './roles.ts';

/**
 * Holds the account's row against other member changes until the transaction ends, so two owners demoting each
 * other at once cannot leave it with none. NO KEY UPDATE: inserts that only reference the account (keys,
 * attestations) are not held up.
 */
export async function lockMembers(tx: Db, accountId: string): Promise<void> {
  await tx
    .selectFrom('accounts')
    .select((eb) => eb.lit(1).as('one'))
    .where('id', '=', accountId)
    .forNoKeyUpdate()
    .execute();
}

/** Where a page of members starts: after the member who joined at `createdAt` with this row id. */
export interface MemberPosition {
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

/** Sets an account's plan; the plan it had, or undefined when there is no such account. */
export async function updatePlan(tx: Db, accountId: string, plan: string): Promise<string | undefined> {
  const before = await tx.selectFrom('accounts').select('plan').where('id', '=', accountId).executeTakeFirst();
  if (!before) return undefined;
  await tx.updateTable('accounts').set({ plan }).where('id', '=', accountId).execute();
  return before.plan;
}

/** Every account with its plan and member count, by name. */
export async function listAccounts(db: Db) {
  const rows = await db
    .selectFrom('accounts as a')
    .select(['a.id', 'a.name', 'a.plan', 'a.createdAt'])
    .select((eb) =>
      eb
        .selectFrom('members as m')
        .select((count) => count.fn.countAll<string>().as('n'))
        .whereRef('m.accountId', '=', 'a.id')
        .as('members'),
    )
    .orderBy('a.name', 'asc')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    plan: r.plan,
    members: Number(r.members),
    createdAt: r.createdAt.toISOString(),
  }));
}

export async function accountNameOf(db: Db, id: string): Promise<string | undefined> {
  return (await db.selectFrom('accounts').select('name').where('id', '=', id).executeTakeFirst())?.name;
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

import { randomUUID } from 'node:crypto';
import { expressionBuilder, type Expression } from 'kysely';
import type { Db, DB } from '../db/database.ts';

// The accounts table: every statement on it is here or in a store beside it (member-store.ts, invitation-store.ts,
// standing-store.ts, lookup-store.ts); another feature calls these, or joins `accountsJoin` into its own statement.

/** An account as the operator's CLI finds it: who opened it decides whether a name may reach it. */
export interface AccountRow {
  id: string;
  name: string;
  createdBy: string;
}

export async function findAccountById(db: Db, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').select(['id', 'name', 'createdBy']).where('id', '=', id).executeTakeFirst();
}

/** The account whose name has this key (NFKC, lower case: account-name.ts). */
export async function findAccountByNameKey(db: Db, nameKey: string): Promise<AccountRow | undefined> {
  return db
    .selectFrom('accounts')
    .select(['id', 'name', 'createdBy'])
    .where('nameKey', '=', nameKey)
    .executeTakeFirst();
}

/** A new account; undefined when its name key is taken (the unique index decides, so two opens race safely). */
export async function insertAccount(
  db: Db,
  row: { name: string; nameKey: string; plan?: string; createdBy: 'cli' | 'dashboard'; vouched?: boolean },
): Promise<AccountRow | undefined> {
  return db
    .insertInto('accounts')
    .values({ id: randomUUID(), ...row })
    .onConflict((conflict) => conflict.doNothing())
    .returning(['id', 'name', 'createdBy'])
    .executeTakeFirst();
}

/**
 * Holds the account's row until the transaction ends, so concurrent changes of one account (its members, its keys
 * against the cap, its webhook subscriptions, its attester challenges) queue there. `no key update` (the default)
 * lets inserts that only reference the account (keys, attestations) through; `update` holds them too.
 */
export async function lockAccount(
  db: Db,
  accountId: string,
  strength: 'no key update' | 'update' = 'no key update',
): Promise<void> {
  const query = db
    .selectFrom('accounts')
    .select((eb) => eb.lit(1).as('one'))
    .where('id', '=', accountId);
  await (strength === 'update' ? query.forUpdate() : query.forNoKeyUpdate()).execute();
}

export async function accountPlan(db: Db, accountId: string): Promise<string | undefined> {
  const row = await db.selectFrom('accounts').select('plan').where('id', '=', accountId).executeTakeFirst();
  return row?.plan;
}

/** Sets an account's plan; the plan it had, or undefined when there is no such account. */
export async function updatePlan(tx: Db, accountId: string, plan: string): Promise<string | undefined> {
  const before = await tx.selectFrom('accounts').select('plan').where('id', '=', accountId).executeTakeFirst();
  if (!before) return undefined;
  await tx.updateTable('accounts').set({ plan }).where('id', '=', accountId).execute();
  return before.plan;
}

export async function accountNameOf(db: Db, id: string): Promise<string | undefined> {
  return (await db.selectFrom('accounts').select('name').where('id', '=', id).executeTakeFirst())?.name;
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

/** Accounts (all, or the one with this exact name) by name: their ids and names. */
export async function accountsByName(db: Db, name?: string): Promise<Array<{ id: string; name: string }>> {
  return db
    .selectFrom('accounts')
    .select(['id', 'name'])
    .$if(name !== undefined, (qb) => qb.where('name', '=', name!))
    .orderBy('name')
    .execute();
}

/**
 * The accounts table as another feature's statement joins it, under `alias`: the columns others read (name, plan,
 * standing). A subquery PostgreSQL flattens, so the plan is a plain join's, in that statement.
 */
export const accountsJoin = <A extends string>(db: Db, alias: A) =>
  db.selectFrom('accounts').select(['id', 'name', 'plan', 'vouched']).as(alias);

/** The name of the account `accountId` refers to, as a subquery of another feature's statement (one value). */
export const accountNameSubquery = (accountId: Expression<string>) =>
  expressionBuilder<DB>().selectFrom('accounts as named').select('named.name').where('named.id', '=', accountId);

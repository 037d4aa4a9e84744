import type { Db } from '../db/database.ts';

/** Whether someone answerable stands behind the account (accounts.vouched); false for no such account. */
export async function accountVouched(db: Db, accountId: string): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('vouched').where('id', '=', accountId).executeTakeFirst();
  return row?.vouched === true;
}

/**
 * Vouches for every account this person owns once their address is confirmed: a no-op while it is not, so callers
 * need not read the flag first.
 */
export async function vouchAccountsOwnedBy(db: Db, userId: string): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ vouched: true })
    .where('vouched', '=', false)
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('members as m')
        .innerJoin('users as u', 'u.id', 'm.userId')
        .select('m.accountId')
        .where('m.userId', '=', userId)
        .where('m.role', '=', 'owner')
        .where('u.emailVerified', '=', true),
    )
    .execute();
}

/** Holds the person's row until the transaction ends, so two account openings at once are counted one at a time. */
export async function lockOpener(tx: Db, userId: string): Promise<void> {
  await tx.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute();
}

/** The accounts a sign-up opened that this person owns (the operator's and others' accounts do not count). */
export async function countOpenedAccounts(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('members as m')
    .innerJoin('accounts as a', 'a.id', 'm.accountId')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('m.userId', '=', userId)
    .where('m.role', '=', 'owner')
    .where('a.createdBy', '=', 'dashboard')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

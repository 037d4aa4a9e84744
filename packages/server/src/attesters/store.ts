import type { Db } from '../db/database.ts';

/** A live registration as the API lists it. */
export interface AttesterRow {
  id: string;
  accountId: string;
  address: string;
  createdAt: Date;
}

interface ChallengeRow {
  id: string;
  accountId: string;
  address: string;
  message: string;
  expiresAt: Date;
}

const ONE_LIVE_ADDRESS = 'attesters_address_key';

/** Whether an insert failed because the address has a live registration already (a concurrent one won). */
export function isAddressTaken(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string } | null;
  return e?.code === '23505' && e.constraint === ONE_LIVE_ADDRESS;
}

export async function insertChallenge(db: Db, row: ChallengeRow & { createdAt: Date }): Promise<void> {
  await db.insertInto('attesterChallenges').values(row).execute();
}

/** Uses a challenge of this account: once, before it expires; undefined when it is unknown, used or expired. */
export async function useChallenge(
  db: Db,
  id: string,
  accountId: string,
  now: Date,
): Promise<ChallengeRow | undefined> {
  return db
    .updateTable('attesterChallenges')
    .set({ usedAt: now })
    .where('id', '=', id)
    .where('accountId', '=', accountId)
    .where('usedAt', 'is', null)
    .where('expiresAt', '>', now)
    .returning(['id', 'accountId', 'address', 'message', 'expiresAt'])
    .executeTakeFirst();
}

/** Drops challenges that expired a day ago or more: they can no longer be used, and nothing reads them. */
export async function pruneChallenges(db: Db, before: Date): Promise<void> {
  await db.deleteFrom('attesterChallenges').where('expiresAt', '<', before).execute();
}

/** The live registration of an address (lower case), whichever account holds it. */
export async function liveAttester(db: Db, address: string): Promise<AttesterRow | undefined> {
  return db
    .selectFrom('attesters')
    .select(['id', 'accountId', 'address', 'createdAt'])
    .where('address', '=', address)
    .where('removedAt', 'is', null)
    .executeTakeFirst();
}

/** The account's live registrations among these addresses (lower case), locked until the transaction ends. */
export async function lockAttesters(db: Db, accountId: string, addresses: string[]): Promise<Set<string>> {
  const rows = await db
    .selectFrom('attesters')
    .select('address')
    .where('accountId', '=', accountId)
    .where((eb) => eb('address', '=', eb.fn.any(eb.val(addresses))))
    .where('removedAt', 'is', null)
    .orderBy('address')
    .forUpdate()
    .execute();
  return new Set(rows.map((row) => row.address));
}

export async function insertAttester(db: Db, row: AttesterRow): Promise<void> {
  await db.insertInto('attesters').values(row).execute();
}

export async function listAttesters(db: Db, accountId: string): Promise<AttesterRow[]> {
  return db
    .selectFrom('attesters')
    .select(['id', 'accountId', 'address', 'createdAt'])
    .where('accountId', '=', accountId)
    .where('removedAt', 'is', null)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

/** Removes the account's live registration of an address; whether there was one. */
export async function removeAttester(db: Db, accountId: string, address: string, at: Date): Promise<boolean> {
  const rows = await db
    .updateTable('attesters')
    .set({ removedAt: at })
    .where('accountId', '=', accountId)
    .where('address', '=', address)
    .where('removedAt', 'is', null)
    .returning('id')
    .execute();
  return rows.length > 0;
}

/** The account's challenges that can still be used: how many, and when the first of them expires. */
export async function pendingChallenges(
  db: Db,
  accountId: string,
  now: Date,
): Promise<{ pending: number; firstExpiry: Date | null }> {
  const row = await db
    .selectFrom('attesterChallenges')
    .select((eb) => [eb.fn.countAll<string>().as('pending'), eb.fn.min('expiresAt').as('firstExpiry')])
    .where('accountId', '=', accountId)
    .where('usedAt', 'is', null)
    .where('expiresAt', '>', now)
    .executeTakeFirstOrThrow();
  return { pending: Number(row.pending), firstExpiry: row.firstExpiry };
}

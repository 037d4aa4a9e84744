import type { Db } from '../db/database.ts';

/** An account as the support view lists it. */
export interface SupportAccountRow {
  id: string;
  name: string;
  plan: string;
  createdAt: Date;
}

/** `%` and `_` stand for themselves inside a LIKE pattern (backslash is PostgreSQL's default escape). */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Accounts whose name contains `part` (any case), by name. */
export async function accountsNamed(db: Db, part: string, limit: number): Promise<SupportAccountRow[]> {
  return db
    .selectFrom('accounts')
    .select(['id', 'name', 'plan', 'createdAt'])
    .where('name', 'ilike', `%${likeLiteral(part)}%`)
    .orderBy('name', 'asc')
    .limit(limit)
    .execute();
}

/** The account holding the key with this prefix, if any. */
export async function accountOfKey(db: Db, prefix: string): Promise<SupportAccountRow | undefined> {
  return db
    .selectFrom('apiKeys as k')
    .innerJoin('accounts as a', 'a.id', 'k.accountId')
    .select(['a.id', 'a.name', 'a.plan', 'a.createdAt'])
    .where('k.prefix', '=', prefix)
    .executeTakeFirst();
}

/** The account that made the attestation with this uid, if any. */
export async function accountOfAttestation(db: Db, uid: string): Promise<SupportAccountRow | undefined> {
  return db
    .selectFrom('attestations as t')
    .innerJoin('accounts as a', 'a.id', 't.accountId')
    .select(['a.id', 'a.name', 'a.plan', 'a.createdAt'])
    .where('t.uid', '=', uid)
    .executeTakeFirst();
}

export async function accountById(db: Db, id: string): Promise<SupportAccountRow | undefined> {
  return db.selectFrom('accounts').select(['id', 'name', 'plan', 'createdAt']).where('id', '=', id).executeTakeFirst();
}

/** An account's keys, oldest first, with their on-chain use in `period` (0 when none). */
export async function keysWithUsage(db: Db, accountId: string, period: string) {
  return db
    .selectFrom('apiKeys as k')
    .leftJoin('monthlyUsage as u', (join) => join.onRef('u.apiKeyId', '=', 'k.id').on('u.period', '=', period))
    .select(['k.prefix', 'k.name', 'k.tier', 'k.revokedAt'])
    .select((eb) => eb.fn.coalesce('u.onchainUsed', eb.lit(0)).as('used'))
    .where('k.accountId', '=', accountId)
    .orderBy('k.createdAt', 'asc')
    .execute();
}

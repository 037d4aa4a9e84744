import type { Db } from '../db/database.ts';

// Finding an account for the operator's support team (dashboard/support.ts): by a part of its name, by one of its
// keys, by one of its attestations, by id.

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

export async function accountOfKey(db: Db, prefix: string): Promise<SupportAccountRow | undefined> {
  return db
    .selectFrom('apiKeys as k')
    .innerJoin('accounts as a', 'a.id', 'k.accountId')
    .select(['a.id', 'a.name', 'a.plan', 'a.createdAt'])
    .where('k.prefix', '=', prefix)
    .executeTakeFirst();
}

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

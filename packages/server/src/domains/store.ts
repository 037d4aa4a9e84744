import type { Db } from '../db/database.ts';
import type { ProofMethod } from './contracts.ts';

export interface DomainRow {
  id: string;
  accountId: string;
  domain: string;
  token: string;
  createdAt: Date;
  verifiedAt: Date | null;
  verifiedBy: ProofMethod | null;
}

const COLUMNS = ['id', 'accountId', 'domain', 'token', 'createdAt', 'verifiedAt', 'verifiedBy'] as const;

/** Whether an insert failed because the account claims this domain already (a concurrent add won). */
export function isDomainClaimed(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string } | null;
  return e?.code === '23505' && e.constraint === 'account_domains_account_id_domain_key';
}

export async function insertDomain(db: Db, row: Omit<DomainRow, 'verifiedAt' | 'verifiedBy'>): Promise<void> {
  await db.insertInto('accountDomains').values(row).execute();
}

export async function countDomains(db: Db, accountId: string): Promise<number> {
  const { n } = await db
    .selectFrom('accountDomains')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('accountId', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(n);
}

export async function listDomains(db: Db, accountId: string): Promise<DomainRow[]> {
  const rows = await db
    .selectFrom('accountDomains')
    .select(COLUMNS)
    .where('accountId', '=', accountId)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
  return rows as DomainRow[];
}

export async function findDomain(db: Db, accountId: string, domain: string): Promise<DomainRow | undefined> {
  const row = await db
    .selectFrom('accountDomains')
    .select(COLUMNS)
    .where('accountId', '=', accountId)
    .where('domain', '=', domain)
    .executeTakeFirst();
  return row as DomainRow | undefined;
}

/** Marks a domain verified unless it is already; the row as it now is when this call verified it. */
export async function markVerified(db: Db, id: string, at: Date, method: ProofMethod): Promise<DomainRow | undefined> {
  const row = await db
    .updateTable('accountDomains')
    .set({ verifiedAt: at, verifiedBy: method })
    .where('id', '=', id)
    .where('verifiedAt', 'is', null)
    .returning(COLUMNS)
    .executeTakeFirst();
  return row as DomainRow | undefined;
}

/** Deletes the account's claim to a domain; whether there was one. */
export async function deleteDomain(db: Db, accountId: string, domain: string): Promise<boolean> {
  const rows = await db
    .deleteFrom('accountDomains')
    .where('accountId', '=', accountId)
    .where('domain', '=', domain)
    .returning('id')
    .execute();
  return rows.length > 0;
}

import { randomUUID } from 'node:crypto';
import type { Db, Tx } from '../db/prisma.ts';
import type { Tier } from './format.ts';
import type { Prisma } from '../db/rows.ts';
import type { Sql } from '../db/sql.ts';

/**
 * An api_keys row as authentication reads it (raw SQL: exactly the columns findKeysForAuth selects), with its
 * account's name and plan.
 */
export type KeyRow = Pick<
  Prisma.ApiKeyModel,
  'id' | 'accountId' | 'prefix' | 'secretHash' | 'tier' | 'createdAt' | 'revokedAt' | 'createdBy'
> & { accountName: string; accountPlan: string };

/** A key as the operator sees it: every column (the label, provenance, last use: not read on the hot auth path). */
export type KeyRecord = Prisma.ApiKeyModel & { accountName: string };

/** The key with this prefix, with its account's name. */
export async function findKeyByPrefix(db: Db | Tx, prefix: string): Promise<KeyRecord | undefined> {
  const row = await db.apiKey.findUnique({ where: { prefix }, include: { account: { select: { name: true } } } });
  if (!row) return undefined;
  return { ...row, accountName: row.account.name };
}

/** An account as the operator's CLI finds it: who opened it decides whether a name may reach it. */
export interface AccountRow {
  id: string;
  name: string;
  createdBy: string;
}

const ACCOUNT_ROW = { id: true, name: true, createdBy: true } as const;

export async function findAccountById(db: Db | Tx, id: string): Promise<AccountRow | undefined> {
  return (await db.account.findUnique({ where: { id }, select: ACCOUNT_ROW })) ?? undefined;
}

/** The account whose name has this key (NFKC, lower case: keys/account-name.ts). */
export async function findAccountByNameKey(db: Db | Tx, nameKey: string): Promise<AccountRow | undefined> {
  return (await db.account.findUnique({ where: { nameKey }, select: ACCOUNT_ROW })) ?? undefined;
}

/** A new account; undefined when its name key is taken (the unique index decides, so two opens race safely). */
export async function insertAccount(
  db: Db | Tx,
  row: { name: string; nameKey: string; plan?: string; createdBy: 'cli' | 'dashboard' },
): Promise<AccountRow | undefined> {
  const [created] = await db.account.createManyAndReturn({
    data: [{ id: randomUUID(), ...row }],
    skipDuplicates: true,
    select: ACCOUNT_ROW,
  });
  return created;
}

/**
 * Holds the account's row until the transaction ends, so two mints at once cannot both pass the cap. NO KEY UPDATE:
 * inserts that only reference the account are not held up. Raw SQL: Prisma has no row locks.
 */
export async function lockAccountForKeys(tx: Tx, accountId: string): Promise<void> {
  await tx.$executeRaw`SELECT 1 FROM accounts WHERE id = ${accountId}::uuid FOR NO KEY UPDATE`;
}

/** The account's keys that are not revoked. */
export async function countActiveKeys(db: Db | Tx, accountId: string): Promise<number> {
  return db.apiKey.count({ where: { accountId, revokedAt: null } });
}

export async function insertKey(
  db: Db | Tx,
  key: {
    accountId: string;
    prefix: string;
    secretHash: Buffer;
    tier: Tier;
    name?: string;
    createdBy?: string;
    createdAt?: Date;
  },
): Promise<{ id: string; createdAt: Date }> {
  return db.apiKey.create({
    data: { id: randomUUID(), ...key, secretHash: new Uint8Array(key.secretHash) },
    select: { id: true, createdAt: true },
  });
}

export async function listKeys(db: Db | Tx, accountName?: string): Promise<KeyRecord[]> {
  const rows = await db.apiKey.findMany({
    where: accountName ? { account: { name: accountName } } : {},
    include: { account: { select: { name: true } } },
    orderBy: { createdAt: 'asc' },
  });
  return rows.map((row) => ({ ...row, accountName: row.account.name }));
}

/** An account's keys for its dashboard, newest first, with the member who minted each (null: the operator's CLI). */
export function accountKeys(db: Db | Tx, accountId: string) {
  return db.apiKey.findMany({
    where: { accountId },
    select: {
      id: true,
      prefix: true,
      name: true,
      tier: true,
      createdAt: true,
      lastUsedAt: true,
      revokedAt: true,
      creator: { select: { name: true, email: true } },
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
}

/** Sets revoked_at once; a second revoke leaves the first time in place. */
export async function markRevoked(db: Db | Tx, prefix: string, at: Date): Promise<KeyRecord | undefined> {
  await db.apiKey.updateMany({ where: { prefix, revokedAt: null }, data: { revokedAt: at } });
  return findKeyByPrefix(db, prefix);
}

/**
 * The keys with these prefixes, for authentication on every gated call: raw SQL, as this is the hottest query and
 * Prisma takes twice as long for it (bench/prisma-vs-raw.ts, docs/decisions.md).
 */
export async function findKeysForAuth(sql: Sql, prefixes: string[]): Promise<Map<string, KeyRow>> {
  const rows = await sql.query<KeyRow>(
    `SELECT k.id, k.account_id AS "accountId", a.name AS "accountName", a.plan AS "accountPlan", k.prefix,
            k.secret_hash AS "secretHash", k.tier, k.created_at AS "createdAt", k.revoked_at AS "revokedAt",
            k.created_by AS "createdBy"
     FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.prefix = ANY($1::bpchar[])`,
    [prefixes],
  );
  return new Map(rows.map((row) => [row.prefix, row]));
}

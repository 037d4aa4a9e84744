import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import { accountsJoin } from '../accounts/store.ts';
import type { Db, DB } from '../db/database.ts';
import { precompiled } from '../db/precompiled.ts';
import { tableRows } from '../db/recordset.ts';
import type { Tier } from './format.ts';

/** An api_keys row as authentication reads it, with its account's name and plan. */
type KeyRow = Pick<
  Selectable<DB['apiKeys']>,
  'id' | 'accountId' | 'prefix' | 'secretHash' | 'tier' | 'createdAt' | 'revokedAt' | 'createdBy'
> & { accountName: string; accountPlan: string; accountVouched: boolean };

/** A key as the operator sees it: every column (the label, provenance, last use: not read on the hot auth path). */
export type KeyRecord = Selectable<DB['apiKeys']> & { accountName: string };

const keysWithAccountName = (db: Db) =>
  db
    .selectFrom('apiKeys as k')
    .innerJoin(accountsJoin(db, 'a'), 'a.id', 'k.accountId')
    .selectAll('k')
    .select('a.name as accountName');

/** The key with this prefix, with its account's name. */
export async function findKeyByPrefix(db: Db, prefix: string): Promise<KeyRecord | undefined> {
  return keysWithAccountName(db).where('k.prefix', '=', prefix).executeTakeFirst();
}

/** The account's keys that are not revoked. */
export async function countActiveKeys(db: Db, accountId: string): Promise<number> {
  const { n } = await db
    .selectFrom('apiKeys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('accountId', '=', accountId)
    .where('revokedAt', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(n);
}

export async function insertKey(
  db: Db,
  key: {
    accountId: string;
    prefix: string;
    secretHash: Buffer;
    tier: Tier;
    name?: string | undefined;
    createdBy?: string | null;
    createdAt?: Date;
  },
): Promise<{ id: string; createdAt: Date }> {
  return db
    .insertInto('apiKeys')
    .values({ id: randomUUID(), ...key })
    .returning(['id', 'createdAt'])
    .executeTakeFirstOrThrow();
}

/** Every key (or an account's, by its name), oldest first, with its account's name. */
export async function listKeys(db: Db, accountName?: string): Promise<KeyRecord[]> {
  return keysWithAccountName(db)
    .$if(accountName !== undefined && accountName !== '', (query) => query.where('a.name', '=', accountName!))
    .orderBy('k.createdAt', 'asc')
    .execute();
}

/** An account's keys for its dashboard, newest first, with the member who minted each (null: the operator's CLI). */
export async function accountKeys(db: Db, accountId: string) {
  const rows = await db
    .selectFrom('apiKeys as k')
    .leftJoin('users as u', 'u.id', 'k.createdBy')
    .select(['k.id', 'k.prefix', 'k.name', 'k.tier', 'k.createdAt', 'k.lastUsedAt', 'k.revokedAt'])
    .select(['u.name as creatorName', 'u.email as creatorEmail'])
    .where('k.accountId', '=', accountId)
    .orderBy('k.createdAt', 'desc')
    .orderBy('k.id', 'desc')
    .execute();
  return rows.map(({ creatorName, creatorEmail, ...row }) => ({
    ...row,
    creator: creatorName === null || creatorEmail === null ? null : { name: creatorName, email: creatorEmail },
  }));
}

/** Sets revoked_at once; a second revoke leaves the first time in place. */
export async function markRevoked(db: Db, prefix: string, at: Date): Promise<KeyRecord | undefined> {
  await db
    .updateTable('apiKeys')
    .set({ revokedAt: at })
    .where('prefix', '=', prefix)
    .where('revokedAt', 'is', null)
    .execute();
  return findKeyByPrefix(db, prefix);
}

/**
 * The keys behind prefixes, with their accounts: compiled once and run as a prepared statement, since it runs for
 * every gated call (built and planned anew each time, it cost an off-chain create a tenth of its throughput).
 */
const keysForAuth = precompiled(
  (db: Db, prefixes: string[]) =>
    db
      .selectFrom('apiKeys as k')
      .innerJoin(accountsJoin(db, 'a'), 'a.id', 'k.accountId')
      .select(['k.id', 'k.accountId', 'a.name as accountName', 'a.plan as accountPlan', 'k.prefix', 'k.secretHash'])
      .select(['k.tier', 'k.createdAt', 'k.revokedAt', 'k.createdBy', 'a.vouched as accountVouched'])
      .where((eb) => eb('k.prefix', '=', eb.fn.any(sql<string[]>`${prefixes}::bpchar[]`))),
  [[] as string[]],
  (row: RawKeyRow): KeyRow => ({
    id: row.id,
    accountId: row.account_id,
    accountName: row.account_name,
    accountPlan: row.account_plan,
    prefix: row.prefix,
    secretHash: row.secret_hash,
    tier: row.tier,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    createdBy: row.created_by,
    accountVouched: row.account_vouched,
  }),
);

type RawKeyRow = {
  id: string;
  account_id: string;
  account_name: string;
  account_plan: string;
  prefix: string;
  secret_hash: Buffer;
  tier: KeyRow['tier'];
  created_at: Date;
  revoked_at: Date | null;
  created_by: string | null;
  account_vouched: boolean;
};

/** The keys with these prefixes, for authentication on every gated call: one statement, one parameter. */
export async function findKeysForAuth(db: Db, prefixes: string[]): Promise<Map<string, KeyRow>> {
  const rows = await keysForAuth(db, prefixes);
  return new Map(rows.map((row) => [row.prefix, row]));
}

/**
 * Writes keys' last uses in one statement, skipping a row whose stored time is already within `resolutionMs` of the
 * new one (another replica wrote it).
 */
export async function recordLastUses(
  db: Db,
  uses: ReadonlyArray<{ id: string; lastUsedAt: Date }>,
  resolutionMs: number,
): Promise<void> {
  await db
    .updateTable('apiKeys as k')
    .from(tableRows('apiKeys', uses, 'u'))
    .set((eb) => ({ lastUsedAt: eb.ref('u.lastUsedAt') }))
    .whereRef('k.id', '=', 'u.id')
    .where((eb) =>
      eb.or([
        eb('k.lastUsedAt', 'is', null),
        eb(
          'k.lastUsedAt',
          '<=',
          sql<Date>`${eb.ref('u.lastUsedAt')} - ${resolutionMs}::int * interval '1 millisecond'`,
        ),
      ]),
    )
    .execute();
}

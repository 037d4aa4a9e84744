import type { Sql } from '../db/sql.ts';

/** A live registration as the API lists it. */
export interface AttesterRow {
  id: string;
  accountId: string;
  address: string;
  createdAt: Date;
}

export interface ChallengeRow {
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

export async function insertChallenge(sql: Sql, row: ChallengeRow & { createdAt: Date }): Promise<void> {
  await sql.query(
    `INSERT INTO attester_challenges (id, account_id, address, message, created_at, expires_at)
     VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6)`,
    [row.id, row.accountId, row.address, row.message, row.createdAt, row.expiresAt],
  );
}

/** Uses a challenge of this account: once, before it expires; undefined when it is unknown, used or expired. */
export async function useChallenge(
  sql: Sql,
  id: string,
  accountId: string,
  now: Date,
): Promise<ChallengeRow | undefined> {
  const rows = await sql.query<ChallengeRow>(
    `UPDATE attester_challenges SET used_at = $3
     WHERE id = $1::uuid AND account_id = $2::uuid AND used_at IS NULL AND expires_at > $3
     RETURNING id::text, account_id::text AS "accountId", address, message, expires_at AS "expiresAt"`,
    [id, accountId, now],
  );
  return rows[0];
}

/** Drops challenges that expired a day ago or more: they can no longer be used, and nothing reads them. */
export async function pruneChallenges(sql: Sql, before: Date): Promise<void> {
  await sql.query(`DELETE FROM attester_challenges WHERE expires_at < $1`, [before]);
}

/** The live registration of an address (lower case), whichever account holds it. */
export async function liveAttester(sql: Sql, address: string): Promise<AttesterRow | undefined> {
  const rows = await sql.query<AttesterRow>(
    `SELECT id::text, account_id::text AS "accountId", address, created_at AS "createdAt"
     FROM attesters WHERE address = $1 AND removed_at IS NULL`,
    [address],
  );
  return rows[0];
}

/** The account's live registrations among these addresses (lower case), locked until the transaction ends. */
export async function lockAttesters(sql: Sql, accountId: string, addresses: string[]): Promise<Set<string>> {
  const rows = await sql.query<{ address: string }>(
    `SELECT address FROM attesters WHERE account_id = $1::uuid AND address = ANY($2::text[]) AND removed_at IS NULL
     ORDER BY address FOR UPDATE`,
    [accountId, addresses],
  );
  return new Set(rows.map((row) => row.address));
}

export async function insertAttester(sql: Sql, row: AttesterRow): Promise<void> {
  await sql.query(`INSERT INTO attesters (id, account_id, address, created_at) VALUES ($1::uuid, $2::uuid, $3, $4)`, [
    row.id,
    row.accountId,
    row.address,
    row.createdAt,
  ]);
}

export async function listAttesters(sql: Sql, accountId: string): Promise<AttesterRow[]> {
  return sql.query<AttesterRow>(
    `SELECT id::text, account_id::text AS "accountId", address, created_at AS "createdAt"
     FROM attesters WHERE account_id = $1::uuid AND removed_at IS NULL ORDER BY created_at, id`,
    [accountId],
  );
}

/** Removes the account's live registration of an address; whether there was one. */
export async function removeAttester(sql: Sql, accountId: string, address: string, at: Date): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE attesters SET removed_at = $3 WHERE account_id = $1::uuid AND address = $2 AND removed_at IS NULL
     RETURNING id`,
    [accountId, address, at],
  );
  return rows.length > 0;
}

/** The names of these accounts, by id: a customer attester's record names the account that proved the address. */
export async function accountNames(sql: Sql, ids: string[]): Promise<Map<string, string>> {
  const rows = await sql.query<{ id: string; name: string }>(
    `SELECT id::text, name FROM accounts WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row.name]));
}

import type { PgSnakeRow, Prisma } from '../db/rows.ts';
import type { Sql } from '../db/sql.ts';

// Raw SQL: every POST with an Idempotency-Key claims and completes here (docs/decisions.md, "Persistence").

/** An idempotency_records row as find() reads it (column names as stored; types from the Prisma model). */
export type IdempotencyRow = Pick<
  PgSnakeRow<Prisma.IdempotencyRecordModel>,
  'request_hash' | 'response_status' | 'response_body' | 'created_at' | 'expires_at'
>;

/** Claims (key, Idempotency-Key) for a new request; false when a record is already there. */
export async function claim(
  sql: Sql,
  apiKeyId: string,
  key: string,
  requestHash: string,
  now: Date,
  expiresAt: Date,
): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO idempotency_records (api_key_id, key, request_hash, created_at, expires_at) VALUES ($1::uuid, $2, $3, $4, $5)
     ON CONFLICT (api_key_id, key) DO NOTHING RETURNING 1`,
    [apiKeyId, key, requestHash, now, expiresAt],
  );
  return rows.length === 1;
}

export async function find(sql: Sql, apiKeyId: string, key: string): Promise<IdempotencyRow | undefined> {
  const [row] = await sql.query<IdempotencyRow>(
    `SELECT request_hash, response_status, response_body, created_at, expires_at FROM idempotency_records WHERE api_key_id = $1::uuid AND key = $2`,
    [apiKeyId, key],
  );
  return row;
}

/** Takes over an expired or abandoned record, if nobody else did since it was read as `seenCreatedAt`. */
export async function takeOver(
  sql: Sql,
  apiKeyId: string,
  key: string,
  seenCreatedAt: Date,
  requestHash: string,
  now: Date,
  expiresAt: Date,
): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE idempotency_records SET request_hash = $4, created_at = $5, expires_at = $6, response_status = NULL, response_body = NULL
     WHERE api_key_id = $1::uuid AND key = $2 AND created_at = $3 RETURNING 1`,
    [apiKeyId, key, seenCreatedAt, requestHash, now, expiresAt],
  );
  return rows.length === 1;
}

/** Stores the response of a claimed request; inside the change's own transaction where the service can. */
export async function complete(sql: Sql, apiKeyId: string, key: string, status: number, body: unknown): Promise<void> {
  await sql.query(
    `UPDATE idempotency_records SET response_status = $3, response_body = $4::jsonb WHERE api_key_id = $1::uuid AND key = $2`,
    [apiKeyId, key, status, JSON.stringify(body ?? null)],
  );
}

/** Stores the responses of many claimed requests in one statement. */
export async function completeMany(
  sql: Sql,
  items: Array<{ apiKeyId: string; key: string; status: number; body: unknown }>,
): Promise<void> {
  if (items.length === 0) return;
  await sql.query(
    `UPDATE idempotency_records r SET response_status = v.s, response_body = v.b
     FROM unnest($1::uuid[], $2::text[], $3::int[], $4::jsonb[]) AS v(k, key, s, b) WHERE r.api_key_id = v.k AND r.key = v.key`,
    [
      items.map((i) => i.apiKeyId),
      items.map((i) => i.key),
      items.map((i) => i.status),
      items.map((i) => JSON.stringify(i.body ?? null)),
    ],
  );
}

/** Lets go of many unanswered claims at once (their requests definitively failed), so that retries run afresh. */
export async function releaseMany(sql: Sql, claims: Array<{ apiKeyId: string; key: string }>): Promise<void> {
  if (claims.length === 0) return;
  await sql.query(
    `DELETE FROM idempotency_records r USING unnest($1::uuid[], $2::text[]) AS v(k, key) WHERE r.api_key_id = v.k AND r.key = v.key AND r.response_status IS NULL`,
    [claims.map((c) => c.apiKeyId), claims.map((c) => c.key)],
  );
}

/** Lets go of a claim whose request failed, so that a retry runs afresh. */
export async function release(sql: Sql, apiKeyId: string, key: string): Promise<void> {
  await sql.query(
    `DELETE FROM idempotency_records WHERE api_key_id = $1::uuid AND key = $2 AND response_status IS NULL`,
    [apiKeyId, key],
  );
}

import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Sql } from '../db/sql.ts';
import type { IdempotencyRecord } from '../generated/kysely/database.ts';

// Every POST with an Idempotency-Key claims and completes here (docs/decisions.md, "Persistence").

/** An idempotency record as find() reads it. */
export type IdempotencyRow = Pick<
  Selectable<IdempotencyRecord>,
  'requestHash' | 'responseStatus' | 'responseBody' | 'createdAt' | 'expiresAt'
>;

/** Claims (key, Idempotency-Key) for a new request; false when a record is already there. */
export async function claim(
  db: Db,
  apiKeyId: string,
  key: string,
  requestHash: string,
  now: Date,
  expiresAt: Date,
): Promise<boolean> {
  const rows = await db
    .insertInto('idempotencyRecords')
    .values({ apiKeyId, key, requestHash, createdAt: now, expiresAt })
    .onConflict((oc) => oc.columns(['apiKeyId', 'key']).doNothing())
    .returning((eb) => eb.lit(1).as('claimed'))
    .execute();
  return rows.length === 1;
}

export async function find(db: Db, apiKeyId: string, key: string): Promise<IdempotencyRow | undefined> {
  return db
    .selectFrom('idempotencyRecords')
    .select(['requestHash', 'responseStatus', 'responseBody', 'createdAt', 'expiresAt'])
    .where('apiKeyId', '=', apiKeyId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Takes over an expired or abandoned record, if nobody else did since it was read as `seenCreatedAt`. */
export async function takeOver(
  db: Db,
  apiKeyId: string,
  key: string,
  seenCreatedAt: Date,
  requestHash: string,
  now: Date,
  expiresAt: Date,
): Promise<boolean> {
  const rows = await db
    .updateTable('idempotencyRecords')
    .set({ requestHash, createdAt: now, expiresAt, responseStatus: null, responseBody: null })
    .where('apiKeyId', '=', apiKeyId)
    .where('key', '=', key)
    .where('createdAt', '=', seenCreatedAt)
    .returning((eb) => eb.lit(1).as('taken'))
    .execute();
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
export async function release(db: Db, apiKeyId: string, key: string): Promise<void> {
  await db
    .deleteFrom('idempotencyRecords')
    .where('apiKeyId', '=', apiKeyId)
    .where('key', '=', key)
    .where('responseStatus', 'is', null)
    .execute();
}

import type { Db, Tx } from '../db/prisma.ts';

export interface IdempotencyRow {
  request_hash: string;
  response_status: number | null;
  response_body: unknown;
  created_at: Date;
  expires_at: Date;
}

/** Claims (key, Idempotency-Key) for a new request; false when a record is already there. */
export async function claim(db: Db, apiKeyId: string, key: string, requestHash: string, now: Date, expiresAt: Date): Promise<boolean> {
  const rows = await db.$queryRaw<unknown[]>`
    INSERT INTO idempotency_records (api_key_id, key, request_hash, created_at, expires_at)
    VALUES (${apiKeyId}::uuid, ${key}, ${requestHash}, ${now}, ${expiresAt})
    ON CONFLICT (api_key_id, key) DO NOTHING
    RETURNING 1`;
  return rows.length === 1;
}

export async function find(db: Db, apiKeyId: string, key: string): Promise<IdempotencyRow | undefined> {
  const rows = await db.$queryRaw<IdempotencyRow[]>`
    SELECT request_hash, response_status, response_body, created_at, expires_at
    FROM idempotency_records WHERE api_key_id = ${apiKeyId}::uuid AND key = ${key}`;
  return rows[0];
}

/** Takes over an expired or abandoned record, if nobody else did since it was read as `seenCreatedAt`. */
export async function takeOver(db: Db, apiKeyId: string, key: string, seenCreatedAt: Date, requestHash: string, now: Date, expiresAt: Date): Promise<boolean> {
  const count = await db.$executeRaw`
    UPDATE idempotency_records
    SET request_hash = ${requestHash}, created_at = ${now}, expires_at = ${expiresAt}, response_status = NULL, response_body = NULL
    WHERE api_key_id = ${apiKeyId}::uuid AND key = ${key} AND created_at = ${seenCreatedAt}`;
  return count === 1;
}

/** Stores the response of a claimed request; inside the change's own transaction where the service can. */
export async function complete(db: Db | Tx, apiKeyId: string, key: string, status: number, body: unknown): Promise<void> {
  await db.$executeRaw`
    UPDATE idempotency_records SET response_status = ${status}, response_body = ${JSON.stringify(body ?? null)}::jsonb
    WHERE api_key_id = ${apiKeyId}::uuid AND key = ${key}`;
}

/** Lets go of a claim whose request failed, so that a retry runs afresh. */
export async function release(db: Db, apiKeyId: string, key: string): Promise<void> {
  await db.$executeRaw`
    DELETE FROM idempotency_records WHERE api_key_id = ${apiKeyId}::uuid AND key = ${key} AND response_status IS NULL`;
}

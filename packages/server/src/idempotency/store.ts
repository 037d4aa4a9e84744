import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import { jsonRows, tableRows } from '../db/recordset.ts';
import type { IdempotencyRecord } from '../generated/kysely/database.ts';

// Every POST with an Idempotency-Key claims and completes here (docs/decisions.md, "Persistence").

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
export async function complete(db: Db, apiKeyId: string, key: string, status: number, body: unknown): Promise<void> {
  await db
    .updateTable('idempotencyRecords')
    .set({ responseStatus: status, responseBody: JSON.stringify(body ?? null) })
    .where('apiKeyId', '=', apiKeyId)
    .where('key', '=', key)
    .execute();
}

/** Stores the responses of many claimed requests in one statement. */
export async function completeMany(
  db: Db,
  items: Array<{ apiKeyId: string; key: string; status: number; body: unknown }>,
): Promise<void> {
  if (items.length === 0) return;
  // the body as JSON text, cast: a JSON null read as a jsonb column would be SQL NULL, not the jsonb null stored
  const responses = jsonRows(
    items.map((i) => ({ apiKeyId: i.apiKeyId, key: i.key, status: i.status, body: JSON.stringify(i.body ?? null) })),
    { apiKeyId: 'uuid', key: 'text', status: 'int', body: 'text' },
    'v',
  );
  await db
    .updateTable('idempotencyRecords as r')
    .from(responses)
    .set((eb) => ({ responseStatus: eb.ref('v.status'), responseBody: eb.cast(eb.ref('v.body'), 'jsonb') }))
    .whereRef('r.apiKeyId', '=', 'v.apiKeyId')
    .whereRef('r.key', '=', 'v.key')
    .execute();
}

/** Lets go of many unanswered claims at once (their requests definitively failed), so that retries run afresh. */
export async function releaseMany(db: Db, claims: Array<{ apiKeyId: string; key: string }>): Promise<void> {
  if (claims.length === 0) return;
  await db
    .deleteFrom('idempotencyRecords as r')
    .using(
      tableRows(
        'idempotencyRecords',
        claims.map((c) => ({ apiKeyId: c.apiKeyId, key: c.key })),
        'v',
      ),
    )
    .whereRef('r.apiKeyId', '=', 'v.apiKeyId')
    .whereRef('r.key', '=', 'v.key')
    .where('r.responseStatus', 'is', null)
    .execute();
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

import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { jsonRows } from '../db/recordset.ts';

interface OutboxRow {
  id: string;
  recipient: string;
  subject: string;
  text: string;
  html: string;
  kind: string;
}

/** A queued mail not sent yet, or undefined (sent already, or gone). */
export function unsentMail(db: Db, id: string): Promise<OutboxRow | undefined> {
  return db
    .selectFrom('mailOutbox')
    .select(['id', 'recipient', 'subject', 'textBody as text', 'htmlBody as html', 'kind'])
    .where('id', '=', id)
    .where('sentAt', 'is', null)
    .executeTakeFirst();
}

/** Marks a mail sent and clears its parts: a reset or invitation link is a credential, kept no longer than needed. */
export async function markSent(db: Db, id: string, at: Date): Promise<void> {
  await db
    .updateTable('mailOutbox')
    .set((eb) => ({ sentAt: at, attempts: eb('attempts', '+', 1), lastError: null, textBody: '', htmlBody: '' }))
    .where('id', '=', id)
    .execute();
}

export async function markFailed(db: Db, id: string, error: string): Promise<void> {
  await db
    .updateTable('mailOutbox')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), lastError: error }))
    .where('id', '=', id)
    .execute();
}

/** An account's deliveries that went dead after `since`, by subscription: most first, each with its latest error. */
export function deadDeliveriesSince(
  db: Db,
  accountId: string,
  since: Date,
): Promise<Array<{ url: string; dead: number; lastError: string | null }>> {
  return db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookSubscriptions as s', 's.id', 'd.subscriptionId')
    .select((eb) => [
      's.url',
      sql<number>`count(*)::int`.as('dead'),
      sql<string | null>`(array_agg(coalesce(${eb.ref('d.lastError')}, 'HTTP ' || ${eb.ref('d.lastStatus')}::text)
        ORDER BY ${eb.ref('d.completedAt')} DESC))[1]`.as('lastError'),
    ])
    .where('s.accountId', '=', accountId)
    .where('d.state', '=', 'dead')
    .where('d.completedAt', '>', since)
    .groupBy(['s.id', 's.url'])
    .orderBy('dead', 'desc')
    .orderBy('s.url')
    .execute();
}

export async function lastNotice(db: Db, scope: string, kind: string): Promise<Date | undefined> {
  const row = await db
    .selectFrom('mailNotices')
    .select((eb) => eb.fn.max<Date | null>('createdAt').as('at'))
    .where('scope', '=', scope)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return row?.at ?? undefined;
}

/** Records a notice for its period; false when it was given already (another transaction got there first). */
export async function recordNotice(db: Db, scope: string, kind: string, period: string, at: Date): Promise<boolean> {
  const rows = await db
    .insertInto('mailNotices')
    .values({ scope, kind, period, createdAt: at })
    .onConflict((oc) => oc.doNothing())
    .returning((eb) => eb.lit(1).as('recorded'))
    .execute();
  return rows.length === 1;
}

/** Queues one job of `task` with this payload, due now. */
export async function queueJob(db: Db, task: string, payload: object): Promise<void> {
  // add_job's named arguments are beyond the query builder
  await sql`SELECT 1 AS queued FROM graphile_worker.add_job(${task}::text, ${JSON.stringify(payload)}::json,
      max_attempts => 10)`.execute(db);
}

/**
 * Queues one job of `task` per account, `delaySeconds` from now on the database's clock, under the key
 * `<keyPrefix><account id>`: a waiting job keeps its first run time however often it is asked for again.
 */
export async function queueAccountJobs(
  db: Db,
  task: string,
  keyPrefix: string,
  accountIds: string[],
  delaySeconds: number,
): Promise<void> {
  const accounts = jsonRows(
    accountIds.map((accountId) => ({ accountId })),
    { accountId: 'text' },
    'a',
  );
  // add_job's named arguments are beyond the query builder
  await sql`SELECT count(*) FROM ${accounts}, LATERAL graphile_worker.add_job(${task}::text,
      json_build_object('accountId', a.account_id), run_at => now() + make_interval(secs => ${delaySeconds}::float8),
      job_key => ${keyPrefix}::text || a.account_id, job_key_mode => 'preserve_run_at', max_attempts => 10) AS j`.execute(
    db,
  );
}

export async function emailVerified(db: Db, userId: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('emailVerified').where('id', '=', userId).executeTakeFirst();
  return row?.emailVerified === true;
}

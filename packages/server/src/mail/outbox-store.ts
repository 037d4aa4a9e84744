import { sql, type Insertable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { MailOutbox } from '../generated/kysely/database.ts';

export const MAIL_SEND_TASK = 'mail.send';

/** The mails queued after `since` to this recipient, or about this account. */
export async function mailsSince(db: Db, by: 'recipient' | 'accountId', value: string, since: Date): Promise<number> {
  const row = await db
    .selectFrom('mailOutbox')
    .select(sql<number>`count(*)::int`.as('n'))
    .where(by, '=', value)
    .where('createdAt', '>', since)
    .executeTakeFirst();
  return row?.n ?? 0;
}

/** Stores a mail, its parts sealed already, unsent. */
export async function insertMail(
  db: Db,
  mail: Omit<Insertable<MailOutbox>, 'sentAt' | 'attempts' | 'lastError'>,
): Promise<void> {
  await db.insertInto('mailOutbox').values(mail).execute();
}

/** Queues the send job of a stored mail, under the mail's own job key. */
export async function queueSend(db: Db, mailId: string): Promise<void> {
  // add_job's named arguments are beyond the query builder
  await sql`SELECT 1 AS queued FROM graphile_worker.add_job(${MAIL_SEND_TASK}::text, json_build_object('id', ${mailId}::text),
      job_key => 'mail:' || ${mailId}::text, max_attempts => 10)`.execute(db);
}

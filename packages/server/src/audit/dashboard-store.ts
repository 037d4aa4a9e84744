import type { Sql } from '../db/sql.ts';

/** An audit entry as the dashboard lists it; `actor` is the key prefix, else the member's email, else null. */
export interface ListedEntry {
  id: string;
  at: Date;
  action: string;
  actor: string | null;
  resource: string;
  outcome: string;
  ip: string | null;
  details: Record<string, unknown>;
}

export interface EntryPageQuery {
  accountId: string;
  action?: string | undefined;
  /** Entries of one API key, by prefix. */
  actorKeyPrefix?: string | undefined;
  /** Entries of one dashboard member, by the email their entries recorded (details.actor.email). */
  actorEmail?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** Entries after this one in the page order (a page's cursor). */
  before?: { at: Date; id: string } | undefined;
  limit: number;
}

/**
 * One page of an account's audit entries, newest first: by `at`, then by id among entries of the same millisecond.
 * Each filter walks an index in `at` order and stops after `limit` rows, however rare its value: (account_id,
 * action, at), (account_id, actor_key_prefix, at), members' entries (account_id, at) where details has an actor,
 * or (account_id, at) for a time range alone. The SQL is put together from fixed fragments only; every value is a
 * parameter.
 */
export async function entryPage(sql: Sql, q: EntryPageQuery): Promise<ListedEntry[]> {
  const params: unknown[] = [q.accountId, q.limit];
  const where = ['account_id = $1::uuid'];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (q.action !== undefined) where.push(`action = ${param(q.action)}`);
  if (q.actorKeyPrefix !== undefined) where.push(`actor_key_prefix = ${param(q.actorKeyPrefix)}`);
  // `details ? 'actor'` picks the partial index of members' entries, among which one member's are few to find
  if (q.actorEmail !== undefined)
    where.push(`details ? 'actor' AND details->'actor'->>'email' = ${param(q.actorEmail)}`);
  if (q.from !== undefined) where.push(`at >= ${param(q.from)}`);
  if (q.to !== undefined) where.push(`at < ${param(q.to)}`);
  if (q.before !== undefined) {
    const at = param(q.before.at);
    // `at <= …` bounds the index walk; the tie on `at` is broken by id
    where.push(`at <= ${at} AND (at < ${at} OR id < ${param(q.before.id)}::bigint)`);
  }
  // ordered by the table's columns: the `id` selected is text, which would put 10 before 9
  return sql.query<ListedEntry>(
    `SELECT id::text AS id, at, action, COALESCE(actor_key_prefix, details->'actor'->>'email') AS actor, resource,
            outcome, ip, details
     FROM audit_entries WHERE ${where.join(' AND ')}
     ORDER BY audit_entries.at DESC, audit_entries.id DESC LIMIT $2`,
    params,
  );
}

import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/** An audit entry as the dashboard lists it; `actor` is the key prefix, else the member's email, else null. */
interface ListedEntry {
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
  actorKeyPrefix?: string | undefined;
  /** Entries of one dashboard member, by the email their entries recorded (details.actor.email). */
  actorEmail?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** Entries after this one in the page order (a page's cursor). */
  before?: { at: Date; id: string } | undefined;
  limit: number;
}

/** The email a member's entry recorded (details.actor.email). */
const actorEmail = sql<string | null>`${sql.ref('details')}->'actor'->>'email'`;

/**
 * One page of an account's audit entries, newest first: by `at`, then by id among entries of the same millisecond.
 * Each filter walks an index in `at` order and stops after `limit` rows, however rare its value: (account_id,
 * action, at), (account_id, actor_key_prefix, at), members' entries (account_id, at) where details has an actor,
 * or (account_id, at) for a time range alone.
 */
export async function entryPage(db: Db, q: EntryPageQuery): Promise<ListedEntry[]> {
  const { action, actorKeyPrefix, from, to, before } = q;
  const rows = await db
    .selectFrom('auditEntries')
    .select((eb) => [
      'id',
      'at',
      'action',
      eb.fn.coalesce('actorKeyPrefix', actorEmail).as('actor'),
      'resource',
      'outcome',
      'ip',
      'details',
    ])
    .where('accountId', '=', q.accountId)
    .$if(action !== undefined, (qb) => qb.where('action', '=', action!))
    .$if(actorKeyPrefix !== undefined, (qb) => qb.where('actorKeyPrefix', '=', actorKeyPrefix!))
    // `details ? 'actor'` picks the partial index of members' entries, among which one member's are few to find
    .$if(q.actorEmail !== undefined, (qb) =>
      qb.where(sql<boolean>`${sql.ref('details')} ? 'actor'`).where(actorEmail, '=', q.actorEmail!),
    )
    .$if(from !== undefined, (qb) => qb.where('at', '>=', from!))
    .$if(to !== undefined, (qb) => qb.where('at', '<', to!))
    // `at <= …` bounds the index walk; the tie on `at` is broken by id
    .$if(before !== undefined, (qb) =>
      qb.where('at', '<=', before!.at).where((eb) => eb.or([eb('at', '<', before!.at), eb('id', '<', before!.id)])),
    )
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(q.limit)
    .execute();
  return rows as ListedEntry[];
}

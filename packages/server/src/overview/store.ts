import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

// The overview is read at every visit of the dashboard's first page, and its two counts group up to the whole window
// of an account's rows: each query here is one statement.

/** How far an attestation's created_at may trail a newer id's (writers' clocks, transactions committing out of order). */
const CREATED_AT_SKEW = sql.raw(`interval '1 day'`);

/** A timestamp's UTC day, `YYYY-MM-DD`. */
const utcDay = (column: 'a.createdAt' | 'd.createdAt') =>
  sql<string>`to_char(${sql.ref(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

export interface KeyUsageRow {
  prefix: string;
  name: string | null;
  tier: string;
  revokedAt: Date | null;
  /** Minted by the operator's CLI (no member): its tier may lift the account's (keys/service.ts, accountTierOf). */
  byOperator: boolean;
  used: number;
}

/** The account's keys with their on-chain use in `period`: every live key, and revoked ones that used some. */
export function keyUsage(db: Db, accountId: string, period: string): Promise<KeyUsageRow[]> {
  return db
    .selectFrom('apiKeys as k')
    .leftJoin('monthlyUsage as u', (join) => join.onRef('u.apiKeyId', '=', 'k.id').on('u.period', '=', period))
    .select(['k.prefix', 'k.name', 'k.tier', 'k.revokedAt'])
    .select((eb) => [
      eb('k.createdBy', 'is', null).$castTo<boolean>().as('byOperator'),
      eb.fn.coalesce('u.onchainUsed', eb.lit(0)).as('used'),
    ])
    .where('k.accountId', '=', accountId)
    .where((eb) => eb.or([eb('k.revokedAt', 'is', null), eb('u.onchainUsed', '>', 0)]))
    .orderBy('k.createdAt')
    .orderBy('k.id')
    .execute();
}

interface DailyAttestationRow {
  day: string;
  mode: string;
  type: string;
  n: number;
}

/**
 * Attestations per UTC day in [from, to), by mode and type (failed on-chain ones never happened). One grouped
 * query that reads only the window's rows, however many the account has: ids grow with time, so the newest row
 * created before the window (less a day of skew), found newest-first on (account_id, id DESC), bounds the id range
 * the count scans on the same index.
 */
export function dailyAttestations(db: Db, accountId: string, from: Date, to: Date): Promise<DailyAttestationRow[]> {
  const day = utcDay('a.createdAt');
  return db
    .selectFrom('attestations as a')
    .select((eb) => [day.as('day'), 'a.mode', 'a.type', eb.cast<number>(eb.fn.countAll(), 'integer').as('n')])
    .where('a.accountId', '=', accountId)
    .where((eb) =>
      eb(
        'a.id',
        '>',
        eb.fn.coalesce(
          eb
            .selectFrom('attestations as b')
            .select('b.id')
            .where('b.accountId', '=', accountId)
            .where('b.createdAt', '<', sql<Date>`${from}::timestamptz - ${CREATED_AT_SKEW}`)
            .orderBy('b.id', 'desc')
            .limit(1),
          sql<string>`0`,
        ),
      ),
    )
    .where('a.createdAt', '>=', from)
    .where('a.createdAt', '<', to)
    .where('a.status', '<>', 'failed')
    .groupBy([day, 'a.mode', 'a.type'])
    .execute();
}

interface DailyDeliveryRow {
  day: string;
  outcome: 'completed' | 'failed' | 'dead';
  n: number;
}

/**
 * The account's webhook deliveries per UTC day of their event in [from, to), by outcome: completed, dead (every
 * attempt failed), or failed (an attempt failed and a retry is due). Read on (subscription_id, created_at, id).
 */
export function dailyDeliveries(db: Db, accountId: string, from: Date, to: Date): Promise<DailyDeliveryRow[]> {
  const day = utcDay('d.createdAt');
  const outcome = sql<DailyDeliveryRow['outcome']>`CASE d.state WHEN 'pending' THEN 'failed' ELSE d.state END`;
  return db
    .selectFrom('webhookSubscriptions as s')
    .innerJoin('webhookDeliveries as d', 'd.subscriptionId', 's.id')
    .select((eb) => [day.as('day'), outcome.as('outcome'), eb.cast<number>(eb.fn.countAll(), 'integer').as('n')])
    .where('s.accountId', '=', accountId)
    .where('d.createdAt', '>=', from)
    .where('d.createdAt', '<', to)
    .where((eb) =>
      eb.or([
        eb('d.state', 'in', ['completed', 'dead']),
        eb.and([eb('d.state', '=', 'pending'), eb('d.attempts', '>', 0)]),
      ]),
    )
    .groupBy([day, outcome])
    .execute();
}

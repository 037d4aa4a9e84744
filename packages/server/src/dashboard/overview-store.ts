import type { Sql } from '../db/sql.ts';

// Raw SQL: the overview is read at every visit of the dashboard's first page, and its two counts group up to the
// whole window of an account's rows; each query here is one statement on the pg pool.

/** How far an attestation's created_at may trail a newer id's (writers' clocks, transactions committing out of order). */
const CREATED_AT_SKEW = '1 day';

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
export function keyUsage(sql: Sql, accountId: string, period: string): Promise<KeyUsageRow[]> {
  return sql.query<KeyUsageRow>(
    `SELECT k.prefix, k.name, k.tier, k.revoked_at AS "revokedAt", k.created_by IS NULL AS "byOperator",
            COALESCE(u.onchain_used, 0)::int AS used
     FROM api_keys k LEFT JOIN monthly_usage u ON u.api_key_id = k.id AND u.period = $2
     WHERE k.account_id = $1::uuid AND (k.revoked_at IS NULL OR u.onchain_used > 0)
     ORDER BY k.created_at, k.id`,
    [accountId, period],
  );
}

export interface DailyAttestationRow {
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
export function dailyAttestations(sql: Sql, accountId: string, from: Date, to: Date): Promise<DailyAttestationRow[]> {
  return sql.query<DailyAttestationRow>(
    `SELECT to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, a.mode, a.type, count(*)::int AS n
     FROM attestations a
     WHERE a.account_id = $1::uuid
       AND a.id > COALESCE((SELECT b.id FROM attestations b
                            WHERE b.account_id = $1::uuid AND b.created_at < $2::timestamptz - interval '${CREATED_AT_SKEW}'
                            ORDER BY b.id DESC LIMIT 1), 0)
       AND a.created_at >= $2 AND a.created_at < $3 AND a.status <> 'failed'
     GROUP BY 1, 2, 3`,
    [accountId, from, to],
  );
}

export interface DailyDeliveryRow {
  day: string;
  outcome: 'completed' | 'failed' | 'dead';
  n: number;
}

/**
 * The account's webhook deliveries per UTC day of their event in [from, to), by outcome: completed, dead (every
 * attempt failed), or failed (an attempt failed and a retry is due). Read on (subscription_id, created_at, id).
 */
export function dailyDeliveries(sql: Sql, accountId: string, from: Date, to: Date): Promise<DailyDeliveryRow[]> {
  return sql.query<DailyDeliveryRow>(
    `SELECT to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
            CASE d.state WHEN 'pending' THEN 'failed' ELSE d.state END AS outcome, count(*)::int AS n
     FROM webhook_subscriptions s JOIN webhook_deliveries d ON d.subscription_id = s.id
     WHERE s.account_id = $1::uuid AND d.created_at >= $2 AND d.created_at < $3
       AND (d.state IN ('completed', 'dead') OR (d.state = 'pending' AND d.attempts > 0))
     GROUP BY 1, 2`,
    [accountId, from, to],
  );
}

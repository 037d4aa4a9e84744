import type { Clock } from '../clock.ts';
import type { PgSnakeRow, Prisma } from '../db/rows.ts';
import type { Sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import type { Tier } from '../keys/format.ts';
import { UNOBSERVED, type RefusalObserver } from './refusals.ts';

/** On-chain attestations per key per UTC calendar month; off-chain ones are never counted. */
export const ONCHAIN_MONTHLY_QUOTA: Record<Tier, number> = {
  free: 20,
  pro: 2000,
  enterprise: Number.POSITIVE_INFINITY,
};

/** The quota period of an instant: its UTC calendar month, `YYYY-MM`. */
export function periodOf(at: number): string {
  return new Date(at).toISOString().slice(0, 7);
}

/** The first millisecond of the UTC month after the one holding `at`: when the quota resets. */
export function resetsAtOf(at: number): number {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/**
 * The 429 of a request the month's on-chain quota cannot cover: says how many were asked for and how many are left,
 * and that the quota is exhausted when nothing is left (the spec's wording); details are the spec's.
 */
export function quotaExceeded(tier: Tier, used: number, limit: number, resetsAt: number, requested = 1): AppError {
  const remaining = Math.max(limit - used, 0);
  const state = remaining === 0 ? 'is exhausted' : `cannot cover this ${requested > 1 ? 'batch' : 'request'}`;
  return new AppError(
    'QUOTA_EXCEEDED',
    `The ${tier} tier's monthly on-chain quota ${state}: ${requested} asked, ${remaining} left ` +
      `(${used} of ${limit} used). ` +
      `It resets at ${new Date(resetsAt).toISOString()}. Off-chain attestations are not metered.`,
    { tier, kind: 'onchain', used, limit, resetsAt },
  );
}

/** What the counter statements return (raw SQL: every on-chain create reserves here). */
type UsageRow = Pick<PgSnakeRow<Prisma.MonthlyUsageModel>, 'onchain_used'>;

export interface Reservation {
  period: string;
  count: number;
}

/**
 * Reserves `count` on-chain attestations for a key in the current month, all or none, atomically (one upsert that
 * only adds while the sum stays within the limit); throws 429 QUOTA_EXCEEDED otherwise. Run it inside the
 * transaction that stores the pending attestations, so a failure leaves nothing reserved.
 */
export async function reserveOnchainQuota(
  sql: Sql,
  clock: Clock,
  key: { keyId: string; tier: Tier },
  count: number,
  refusals: RefusalObserver = UNOBSERVED,
): Promise<Reservation> {
  const now = clock.now();
  const period = periodOf(now);
  const limit = ONCHAIN_MONTHLY_QUOTA[key.tier];
  const cap = Number.isFinite(limit) ? limit : 2_147_483_647;
  const rows =
    count > cap
      ? []
      : await sql.query<UsageRow>(
          `INSERT INTO monthly_usage (api_key_id, period, onchain_used) VALUES ($1::uuid, $2, $3)
     ON CONFLICT (api_key_id, period) DO UPDATE SET onchain_used = monthly_usage.onchain_used + EXCLUDED.onchain_used
     WHERE monthly_usage.onchain_used + EXCLUDED.onchain_used <= $4
     RETURNING onchain_used`,
          [key.keyId, period, count, cap],
        );
  if (rows.length === 1) return { period, count };
  const [current] = await sql.query<UsageRow>(
    `SELECT onchain_used FROM monthly_usage WHERE api_key_id = $1::uuid AND period = $2`,
    [key.keyId, period],
  );
  refusals.quotaRefused(key.tier);
  throw quotaExceeded(key.tier, current?.onchain_used ?? 0, limit, resetsAtOf(now), count);
}

/** Gives back a reservation whose transaction definitively failed. */
export async function releaseOnchainQuota(sql: Sql, keyId: string, reservation: Reservation): Promise<void> {
  await sql.query(
    `UPDATE monthly_usage SET onchain_used = GREATEST(onchain_used - $3, 0) WHERE api_key_id = $1::uuid AND period = $2`,
    [keyId, reservation.period, reservation.count],
  );
}

/** What a key has used of its on-chain quota this month. */
export async function onchainUsage(
  sql: Sql,
  clock: Clock,
  key: { keyId: string; tier: Tier },
): Promise<{ used: number; limit: number; resetsAt: number }> {
  const now = clock.now();
  const [row] = await sql.query<UsageRow>(
    `SELECT onchain_used FROM monthly_usage WHERE api_key_id = $1::uuid AND period = $2`,
    [key.keyId, periodOf(now)],
  );
  return { used: row?.onchain_used ?? 0, limit: ONCHAIN_MONTHLY_QUOTA[key.tier], resetsAt: resetsAtOf(now) };
}

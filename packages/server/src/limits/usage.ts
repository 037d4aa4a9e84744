import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { Tier } from '../keys/format.ts';
import type { AuthenticatedKey } from '../keys/service.ts';
import type { RateWindow } from '../http/context.ts';
import { accountUsed, keyUsed } from './quota-store.ts';
import { ONCHAIN_MONTHLY_QUOTA, periodOf, resetsAtOf } from './quota.ts';
import { ACCOUNT_RATE_FACTOR, RATE_LIMITS, WINDOW_SECONDS } from './rate-limit.ts';

/** A sliding minute as a caller reads it: this call counted. */
interface RateUsage {
  limit: number;
  remaining: number;
  windowSeconds: number;
  /** Seconds until a slot frees up (0: the window is empty). */
  resetsInSeconds: number;
}

/** This UTC month's on-chain quota; `limit` null when unlimited (enterprise). */
interface QuotaUsage {
  period: string;
  used: number;
  limit: number | null;
  remaining: number | null;
  resetsAt: number;
}

interface Usage {
  key: { prefix: string; tier: Tier; rate: RateUsage; onchain: QuotaUsage };
  account: { name: string; plan: Tier; rate: RateUsage; onchain: QuotaUsage };
}

const rateOf = (window: RateWindow | undefined, limit: number): RateUsage => ({
  limit: window?.limit ?? limit,
  remaining: window?.remaining ?? limit,
  windowSeconds: WINDOW_SECONDS,
  resetsInSeconds: Math.ceil((window?.resetMs ?? 0) / 1000),
});

const quotaOf = (period: string, used: number, limit: number, resetsAt: number): QuotaUsage =>
  Number.isFinite(limit)
    ? { period, used, limit, remaining: Math.max(limit - used, 0), resetsAt }
    : { period, used, limit: null, remaining: null, resetsAt };

export type UsageService = ReturnType<typeof createUsageService>;

/** What a key and its account have used of their limits: the per-minute windows and this month's on-chain quota. */
export function createUsageService(deps: { db: Db; clock: Clock }) {
  return {
    async of(auth: AuthenticatedKey, rate: { key?: RateWindow; account?: RateWindow } = {}): Promise<Usage> {
      const now = deps.clock.now();
      const period = periodOf(now);
      const resetsAt = resetsAtOf(now);
      const [keyCount, accountCount] = await Promise.all([
        keyUsed(deps.db, auth.keyId, period),
        accountUsed(deps.db, auth.accountId, period),
      ]);
      return {
        key: {
          prefix: auth.prefix,
          tier: auth.tier,
          rate: rateOf(rate.key, RATE_LIMITS[auth.tier]),
          onchain: quotaOf(period, keyCount, ONCHAIN_MONTHLY_QUOTA[auth.tier], resetsAt),
        },
        account: {
          name: auth.accountName,
          plan: auth.accountTier,
          rate: rateOf(rate.account, RATE_LIMITS[auth.accountTier] * ACCOUNT_RATE_FACTOR),
          onchain: quotaOf(period, accountCount, ONCHAIN_MONTHLY_QUOTA[auth.accountTier], resetsAt),
        },
      };
    },
  };
}

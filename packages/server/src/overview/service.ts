import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { Tier } from '../keys/format.ts';
import { accountTierOf } from '../keys/service.ts';
import { accountOnchainUsage, ONCHAIN_MONTHLY_QUOTA, periodOf, resetsAtOf } from '../limits/quota.ts';
import { dailyAttestations, dailyDeliveries, keyUsage, type KeyUsageRow } from './store.ts';

const DAY_MS = 86_400_000;
const ATTESTATION_DAYS = 30;
const DELIVERY_DAYS = 7;

interface Overview {
  period: string;
  resetsAt: string;
  plan: string;
  /** All keys together against the account's tier (its plan, or an operator's key above it); null: unlimited. */
  account: { tier: string; used: number; quota: number | null };
  /** `quota` null: unlimited (the enterprise tier). */
  keys: Array<{
    prefix: string;
    name: string | null;
    tier: string;
    used: number;
    quota: number | null;
    revokedAt: string | null;
  }>;
  daily: Array<{ day: string; onchainHuman: number; onchainAi: number; offchainHuman: number; offchainAi: number }>;
  deliveries: Array<{ day: string; completed: number; failed: number; dead: number }>;
}

/** The last `count` UTC days up to today's, oldest first, and the instants that bound them. */
function days(now: number, count: number): { labels: string[]; from: Date; to: Date } {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const labels = Array.from({ length: count }, (_, i) =>
    new Date(today - (count - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
  return { labels, from: new Date(today - (count - 1) * DAY_MS), to: new Date(today + DAY_MS) };
}

const quotaOf = (tier: string) => {
  const quota = ONCHAIN_MONTHLY_QUOTA[tier as Tier] ?? 0;
  return Number.isFinite(quota) ? quota : null;
};

/** The account's tier as its quota sees it: its plan, lifted by a live key the operator minted above it. */
function accountTierOfKeys(plan: string, keys: KeyUsageRow[]): Tier {
  const member = 'member';
  return keys
    .filter((key) => !key.revokedAt)
    .reduce<Tier>(
      (tier, key) => accountTierOf(tier, { tier: key.tier as Tier, createdBy: key.byOperator ? null : member }),
      accountTierOf(plan, { tier: 'free', createdBy: member }),
    );
}

export type OverviewService = ReturnType<typeof createOverviewService>;

/** The dashboard's first page: this month's quota use per key, 30 days of attestations, 7 days of deliveries. */
export function createOverviewService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  return {
    async get(account: { accountId: string; plan: string }): Promise<Overview> {
      const now = clock.now();
      const period = periodOf(now);
      const attestationDays = days(now, ATTESTATION_DAYS);
      const deliveryDays = days(now, DELIVERY_DAYS);
      const [keys, accountUsed, attestations, deliveries] = await Promise.all([
        keyUsage(db, account.accountId, period),
        accountOnchainUsage(db, account.accountId, period),
        dailyAttestations(db, account.accountId, attestationDays.from, attestationDays.to),
        dailyDeliveries(db, account.accountId, deliveryDays.from, deliveryDays.to),
      ]);
      const daily = new Map(
        attestationDays.labels.map((day) => [
          day,
          { day, onchainHuman: 0, onchainAi: 0, offchainHuman: 0, offchainAi: 0 },
        ]),
      );
      for (const row of attestations) {
        const entry = daily.get(row.day);
        const field = `${row.mode}${row.type === 'ai' ? 'Ai' : 'Human'}` as keyof Omit<
          Overview['daily'][number],
          'day'
        >;
        if (entry && field in entry) entry[field] += row.n;
      }
      const accountTier = accountTierOfKeys(account.plan, keys);
      const outcomes = new Map(deliveryDays.labels.map((day) => [day, { day, completed: 0, failed: 0, dead: 0 }]));
      for (const row of deliveries) {
        const entry = outcomes.get(row.day);
        if (entry) entry[row.outcome] += row.n;
      }
      return {
        period,
        resetsAt: new Date(resetsAtOf(now)).toISOString(),
        plan: account.plan,
        account: { tier: accountTier, used: accountUsed, quota: quotaOf(accountTier) },
        keys: keys.map((key) => ({
          prefix: key.prefix,
          name: key.name,
          tier: key.tier,
          used: key.used,
          quota: quotaOf(key.tier),
          revokedAt: key.revokedAt?.toISOString() ?? null,
        })),
        daily: [...daily.values()],
        deliveries: [...outcomes.values()],
      };
    },
  };
}

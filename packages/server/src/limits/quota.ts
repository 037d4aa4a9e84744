import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { noteQuotaUse } from '../mail/notices.ts';
import type { Tier } from '../keys/format.ts';
import { accountUsed, addToAccount, addToKey, keyUsed, takeFromAccount, takeFromKey } from './quota-store.ts';
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

/** Which limit refused: the key's tier (the per-key rule) or the account's plan, across all its keys. */
type QuotaScope = 'key' | 'account';

/**
 * The 429 of a request the month's on-chain quota cannot cover: says how many were asked for and how many are left,
 * and that the quota is exhausted when nothing is left. Details are docs/api.md's `{ tier, kind, used, limit,
 * resetsAt }`, of the limit that bound (`tier` is the plan's name when the account's limit did), and `scope` says
 * which one.
 */
function quotaExceeded(
  tier: Tier,
  used: number,
  limit: number,
  resetsAt: number,
  requested = 1,
  scope: QuotaScope = 'key',
): AppError {
  const remaining = Math.max(limit - used, 0);
  const state = remaining === 0 ? 'is exhausted' : `cannot cover this ${requested > 1 ? 'batch' : 'request'}`;
  const whose = scope === 'key' ? `The ${tier} tier's` : `The account's ${tier} plan (all its keys together) has its`;
  return new AppError(
    'QUOTA_EXCEEDED',
    `${whose} monthly on-chain quota ${state}: ${requested} asked, ${remaining} left ` +
      `(${used} of ${limit} used). ` +
      `It resets at ${new Date(resetsAt).toISOString()}. Off-chain attestations are not metered.`,
    { tier, kind: 'onchain', used, limit, resetsAt, scope },
  );
}

/**
 * The free plan's on-chain quota is paid for by the relayer's gas: an account gets it once someone answerable stands
 * behind it (an owner's confirmed address, or the operator: accounts/standing.ts). Off-chain creates are not held.
 * Checked before a create joins a group commit, from what authentication read (no query of its own).
 */
export function assertOnchainAllowed(holder: { accountTier: Tier; vouched: boolean }): void {
  if (holder.vouched || holder.accountTier !== 'free') return;
  throw new AppError(
    'FORBIDDEN',
    "The free plan's on-chain quota needs an account owner with a confirmed email address: an owner confirms theirs " +
      'from the dashboard, then on-chain attestations work. Off-chain attestations work meanwhile.',
    { reason: 'OWNER_NOT_VERIFIED', kind: 'onchain' },
  );
}

/** The key a reservation is charged to, with its account and the tier whose numbers bound the account. */
export interface QuotaHolder {
  keyId: string;
  accountId: string;
  tier: Tier;
  /** The account's plan, or the key's tier when the operator minted it above the plan (keys/service.ts). */
  accountTier: Tier;
}

interface Reservation {
  period: string;
  count: number;
}

const INT_MAX = 2_147_483_647;
const capOf = (tier: Tier) => (Number.isFinite(ONCHAIN_MONTHLY_QUOTA[tier]) ? ONCHAIN_MONTHLY_QUOTA[tier] : INT_MAX);

/**
 * Reserves `count` on-chain attestations for a key in the current month, all or none, against both its tier's limit
 * (per key) and its account's (all its keys together); throws 429 QUOTA_EXCEEDED naming the limit that bound (the
 * key's when both do). The account's counter is added to first: its row, locked until the transaction ends, makes the
 * account's reservations one at a time, so the key's check after it is exact; a key refusal takes the account's
 * addition back. Run it inside the transaction that stores the pending attestations.
 */
export async function reserveOnchainQuota(
  db: Db,
  clock: Clock,
  holder: QuotaHolder,
  count: number,
  refusals: RefusalObserver = UNOBSERVED,
): Promise<Reservation> {
  const now = clock.now();
  const period = periodOf(now);
  const refuse = async (scope: QuotaScope): Promise<never> => {
    const usedByKey = await keyUsed(db, holder.keyId, period);
    if (scope === 'account' && usedByKey + count <= capOf(holder.tier)) {
      const used = await accountUsed(db, holder.accountId, period);
      refusals.quotaRefused(holder.accountTier);
      const limit = ONCHAIN_MONTHLY_QUOTA[holder.accountTier];
      throw quotaExceeded(holder.accountTier, used, limit, resetsAtOf(now), count, 'account');
    }
    refusals.quotaRefused(holder.tier);
    throw quotaExceeded(holder.tier, usedByKey, ONCHAIN_MONTHLY_QUOTA[holder.tier], resetsAtOf(now), count, 'key');
  };
  if (count > capOf(holder.tier)) return refuse('key');
  if (count > capOf(holder.accountTier)) return refuse('account');
  const added = await addToAccount(db, holder.accountId, period, count, capOf(holder.accountTier));
  if (added === undefined) return refuse('account');
  if ((await addToKey(db, holder.keyId, period, count, capOf(holder.tier))) !== undefined) {
    // the 80 % and 100 % notices, in this transaction: mailed once a month each (mail/notices.ts)
    const limit = ONCHAIN_MONTHLY_QUOTA[holder.accountTier];
    await noteQuotaUse(db, { accountId: holder.accountId, period, used: added, count, limit }, new Date(now));
    return { period, count };
  }
  await takeFromAccount(db, holder.accountId, period, count);
  return refuse('key');
}

/** Gives back a reservation whose transaction definitively failed: to the account's counter, then the key's. */
export async function releaseOnchainQuota(
  db: Db,
  holder: Pick<QuotaHolder, 'keyId' | 'accountId'>,
  reservation: Reservation,
): Promise<void> {
  await takeFromAccount(db, holder.accountId, reservation.period, reservation.count);
  await takeFromKey(db, holder.keyId, reservation.period, reservation.count);
}

/** What a key has used of its on-chain quota this month. */
export async function onchainUsage(
  db: Db,
  clock: Clock,
  key: { keyId: string; tier: Tier },
): Promise<{ used: number; limit: number; resetsAt: number }> {
  const now = clock.now();
  const used = await keyUsed(db, key.keyId, periodOf(now));
  return { used, limit: ONCHAIN_MONTHLY_QUOTA[key.tier], resetsAt: resetsAtOf(now) };
}

/** What an account has used of its on-chain quota this month, all its keys together. */
export async function accountOnchainUsage(db: Db, accountId: string, period: string): Promise<number> {
  return accountUsed(db, accountId, period);
}

import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import { clientNetworkOf } from './client-network.ts';
import type { WindowStore } from './sliding-window.ts';

const DAY_MS = 24 * 3_600_000;

/**
 * Counts one account opened from a client network (an IPv4 address, an IPv6 network: client-network.ts) in
 * the rate-limit windows, shared by replicas; throws 429 RATE_LIMITED when the day is full. Called once the opening
 * is otherwise sure, inside its transaction: a refused or failed opening costs no slot, and a refusal creates nothing.
 */
export function accountOpenLimiter(windows: WindowStore, clock: Clock, perNetworkPerDay: number, ipv6Prefix?: number) {
  return async (ip: string): Promise<void> => {
    const limit = perNetworkPerDay;
    const decision = await windows.hit(`account-open:${clientNetworkOf(ip, ipv6Prefix)}`, limit, DAY_MS, clock.now());
    if (decision.allowed) return;
    const retryAfterSeconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
    throw new AppError(
      'RATE_LIMITED',
      `Too many new accounts from your network: ${limit} a day. Retry in ${retryAfterSeconds} s.`,
      { limit, windowSeconds: DAY_MS / 1000, retryAfterSeconds, scope: 'ip' },
      { 'Retry-After': String(retryAfterSeconds) },
    );
  };
}

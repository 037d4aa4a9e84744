import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { WindowStore } from './sliding-window.ts';

/**
 * Invitation mails a day, per account and per member whatever their account (INVITATIONS_PER_DAY_PER_ACCOUNT and
 * _PER_MEMBER). The hourly outbox bound is per account, and anyone may open accounts: without a bound per member, one
 * person's accounts together could mail strangers without end from the operator's address.
 */
interface InvitationMailCaps {
  perAccount: number;
  perMember: number;
}

const INVITATION_MAIL_CAPS: InvitationMailCaps = { perAccount: 50, perMember: 25 };

const DAY_MS = 24 * 3_600_000;

function capReached(scope: 'account' | 'key', limit: number, resetMs: number): AppError {
  const retryAfterSeconds = Math.max(1, Math.ceil(resetMs / 1000));
  const who = scope === 'account' ? 'this account' : 'you';
  return new AppError(
    'RATE_LIMITED',
    `Too many invitations: ${who} may send ${limit} invitation mails a day. Retry in ${retryAfterSeconds} s.`,
    // a member's bucket answers as an API key's does (limits/refusals.ts): `key` is the caller's own bucket
    { limit, windowSeconds: DAY_MS / 1000, retryAfterSeconds, scope },
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

/**
 * Counts one invitation mail a member sends for an account, in the rate-limit windows (shared by replicas through
 * Redis); throws 429 RATE_LIMITED when either day is full. Without windows (the operator's CLI), nothing is counted.
 * Called inside the invitation's transaction: a refusal leaves no invitation behind.
 */
export function invitationMailLimiter(windows: WindowStore | undefined, clock: Clock, caps = INVITATION_MAIL_CAPS) {
  return async (sender: { accountId: string; userId: string }): Promise<void> => {
    if (!windows) return;
    const member = await windows.hit(`invite-mail:member:${sender.userId}`, caps.perMember, DAY_MS, clock.now());
    if (!member.allowed) throw capReached('key', caps.perMember, member.resetMs);
    const account = await windows.hit(`invite-mail:account:${sender.accountId}`, caps.perAccount, DAY_MS, clock.now());
    if (!account.allowed) throw capReached('account', caps.perAccount, account.resetMs);
  };
}

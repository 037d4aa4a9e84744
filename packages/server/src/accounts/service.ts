import { auditEntry, type MemberActor, type RequestOrigin } from '../audit/entry.ts';
import { appendAudit } from '../audit/append.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import { TIERS, type Tier } from '../rules.ts';
import { accountNameKey } from './account-name.ts';
import { ACCOUNT_CAPS, tooManyAccounts, type AccountCaps } from './account-caps.ts';
import { insertMember } from './member-store.ts';
import { requireConfirmedAddress } from './standing.ts';
import { countOpenedAccounts, lockOpener } from './standing-store.ts';
import { insertAccount, listAccounts, lockAccount, updatePlan } from './store.ts';

/**
 * A plan is the highest key tier an account's members may mint (docs/decisions.md, "Dashboard sign-in"): the tiers'
 * names.
 */
export const PLANS = TIERS;
export type Plan = Tier;

/** The person who opens an account and becomes its owner. */
interface Opener {
  userId: string;
  email: string;
  /** Whether their address is confirmed: an account they open is then vouched for (standing.ts). */
  emailVerified?: boolean;
}

function nameTaken(name: string): AppError {
  return new AppError('ALREADY_EXISTS', `An account named "${name}" already exists: choose another name.`, {
    id: name,
  });
}

/**
 * Opens an account with `opener` as its owner, audited as theirs, inside the caller's transaction; 409
 * ALREADY_EXISTS when the name is taken.
 */
export async function openAccount(
  tx: Db,
  input: { name: string; plan: Plan; opener: Opener; at: Date; origin: RequestOrigin | null; via: string },
): Promise<{ accountId: string }> {
  // a sign-up is anyone's; the setup link is the operator's (serve printed it), so the CLI may name that account
  const createdBy = input.via === 'signup' ? 'dashboard' : 'cli';
  const account = await insertAccount(tx, {
    name: input.name,
    nameKey: accountNameKey(input.name),
    plan: input.plan,
    createdBy,
    vouched: createdBy === 'cli' || input.opener.emailVerified === true,
  });
  if (!account) throw nameTaken(input.name);
  await insertMember(tx, { accountId: account.id, userId: input.opener.userId, role: 'owner' });
  await appendAudit(
    tx,
    auditEntry({
      accountId: account.id,
      at: input.at,
      action: 'account.created',
      resource: `account:${account.id}`,
      actorMember: { userId: input.opener.userId, email: input.opener.email, role: 'owner' },
      origin: input.origin,
      details: { name: account.name, plan: input.plan, via: input.via },
    }),
  );
  return { accountId: account.id };
}

export type AccountService = ReturnType<typeof createAccountService>;

/** Accounts as the dashboard and the operator's CLI open them and set their plans. */
export function createAccountService(deps: {
  db: Db;
  clock: Clock;
  signup: 'open' | 'closed';
  /** Unset for the operator's CLI, which opens no account through `create`. */
  caps?: AccountCaps;
  /** Counts an opening against its client network's day (limits/account-openings.ts); throws when the day is full. */
  limitOpenings?: (ip: string) => Promise<void>;
}) {
  const { db, clock } = deps;
  const caps = deps.caps ?? ACCOUNT_CAPS;
  return {
    /**
     * A new account on the free plan with the caller as owner: only while DASHBOARD_SIGNUP is open, for a confirmed
     * address, within the caps per person and per network (docs/decisions.md, "Open sign-up").
     */
    async create(opener: Opener, name: string, origin: RequestOrigin): Promise<{ accountId: string }> {
      if (deps.signup !== 'open')
        throw new AppError('FORBIDDEN', 'New accounts are opened by invitation only on this service.');
      requireConfirmedAddress(
        { email: opener.email, emailVerified: opener.emailVerified === true },
        'opening an account',
      );
      const at = new Date(clock.now());
      return inTransaction(db, async (tx) => {
        await lockOpener(tx, opener.userId);
        if ((await countOpenedAccounts(tx, opener.userId)) >= caps.perUser) throw tooManyAccounts(caps.perUser);
        const opened = await openAccount(tx, { name, plan: 'free', opener, at, origin, via: 'signup' });
        await deps.limitOpenings?.(origin.ip);
        return opened;
      });
    },

    /** Sets an account's plan, audited as the actor's (a support member) or the CLI's; NOT_FOUND for no account. */
    async setPlan(
      accountId: string,
      plan: Plan,
      by: { actor?: MemberActor; origin?: RequestOrigin } = {},
    ): Promise<{ accountId: string; plan: Plan }> {
      const at = new Date(clock.now());
      return inTransaction(db, async (tx) => {
        await lockAccount(tx, accountId);
        const before = await updatePlan(tx, accountId, plan);
        if (before === undefined) throw notFound(`Account ${accountId}`);
        await appendAudit(
          tx,
          auditEntry({
            accountId,
            at,
            action: 'account.plan_changed',
            resource: `account:${accountId}`,
            actorMember: by.actor ?? null,
            origin: by.origin ?? null,
            details: { from: before, to: plan, via: by.actor ? 'dashboard' : 'cli' },
          }),
        );
        return { accountId, plan };
      });
    },

    /** Every account with its plan and member count, by name (the operator's `accounts list`). */
    list: () => listAccounts(db),
  };
}

import { accountPlan } from '../accounts/store.ts';
import { memberActor, type Member, type RequestOrigin } from '../audit/entry.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import { mayMint, tiersUpTo } from '../rules.ts';
import type { Tier } from './format.ts';
import type { LastUseRecorder } from './last-used.ts';
import { mintKey } from './mint.ts';
import { accountKeys } from './store.ts';

/** A key as the dashboard lists it (never its secret). */
interface AccountKey {
  prefix: string;
  name: string | null;
  tier: Tier;
  createdBy: { name: string; email: string } | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  state: 'active' | 'revoked';
}

interface MintedKey {
  key: string;
  prefix: string;
  name: string;
  tier: Tier;
  createdAt: string;
}

function aboveThePlan(plan: string, tier: Tier): AppError {
  const allowed = tiersUpTo(plan).join(', ');
  return new AppError(
    'FORBIDDEN',
    `The account's plan is ${plan}: its members may mint ${allowed} keys, not ${tier}. Ask support to change the plan.`,
    { plan, tier },
  );
}

const later = (a: Date | null, b: Date | undefined) => (b && (!a || b > a) ? b : a);

export type MemberKeyService = ReturnType<typeof createMemberKeyService>;

/**
 * The dashboard's side of keys: listed per account, minted by a member within the account's plan (revoking is the
 * key service's, shared with the CLI and support).
 */
export function createMemberKeyService(deps: { db: Db; clock: Clock; lastUse: LastUseRecorder }) {
  const { db, clock, lastUse } = deps;
  return {
    /** The account's keys, newest first; a use noted but not yet written shows already. */
    async list(accountId: string): Promise<AccountKey[]> {
      const rows = await accountKeys(db, accountId);
      return rows.map((row) => ({
        prefix: row.prefix,
        name: row.name,
        tier: row.tier as Tier,
        createdBy: row.creator,
        createdAt: row.createdAt.toISOString(),
        lastUsedAt: later(row.lastUsedAt, lastUse.pending(row.id))?.toISOString() ?? null,
        revokedAt: row.revokedAt?.toISOString() ?? null,
        state: row.revokedAt ? 'revoked' : 'active',
      }));
    },

    /**
     * Mints a key for the member's account, FORBIDDEN above the account's plan (read in the transaction, so a plan
     * lowered meanwhile holds). Audited with the member as actor, with the key in one transaction; the full key is
     * in the result and nowhere else.
     */
    async create(member: Member, input: { name: string; tier: Tier }, origin: RequestOrigin): Promise<MintedKey> {
      const at = new Date(clock.now());
      const minted = await inTransaction(db, async (tx) => {
        const plan = await accountPlan(tx, member.accountId);
        if (plan === undefined) throw notFound('Account');
        if (!mayMint(plan, input.tier)) throw aboveThePlan(plan, input.tier);
        return mintKey(tx, {
          accountId: member.accountId,
          tier: input.tier,
          name: input.name,
          at,
          member: memberActor(member),
          origin,
        });
      });
      return {
        key: minted.key,
        prefix: minted.prefix,
        name: input.name,
        tier: input.tier,
        createdAt: minted.createdAt.toISOString(),
      };
    },
  };
}

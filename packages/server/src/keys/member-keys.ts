import type { Clock } from '../clock.ts';
import type { Db } from '../db/prisma.ts';
import { prismaSql } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import { auditEntry, type RequestOrigin } from '../audit/entry.ts';
import { appendAudit } from '../audit/append.ts';
import { generateKey, hashSecret, TIERS, type Tier } from './format.ts';
import { assertRoomForKey } from './key-cap.ts';
import type { LastUseRecorder } from './last-used.ts';
import { accountKeys, insertKey } from './store.ts';

/** The dashboard member acting (the dashboard's Member, structurally: features do not import dashboard/). */
export interface ActingMember {
  userId: string;
  email: string;
  role: string;
  accountId: string;
}

/** A key as the dashboard lists it (never its secret). */
export interface AccountKey {
  prefix: string;
  name: string | null;
  tier: Tier;
  createdBy: { name: string; email: string } | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  state: 'active' | 'revoked';
}

export interface MintedKey {
  key: string;
  prefix: string;
  name: string;
  tier: Tier;
  createdAt: string;
}

/** An account's plan as a tier; a plan we do not know mints nothing above free. */
const planRank = (plan: string) => Math.max(TIERS.indexOf(plan as Tier), 0);

function aboveThePlan(plan: string, tier: Tier): AppError {
  const allowed = TIERS.slice(0, planRank(plan) + 1).join(', ');
  return new AppError(
    'FORBIDDEN',
    `The account's plan is ${plan}: its members may mint ${allowed} keys, not ${tier}. Ask support to change the plan.`,
    { plan, tier },
  );
}

const later = (a: Date | null, b: Date | undefined) => (b && (!a || b > a) ? b : a);

/** The dashboard's side of keys: listed per account, minted by a member within the account's plan. */
export function memberKeys(db: Db, clock: Clock, lastUse: LastUseRecorder) {
  return {
    /** The account's keys, newest first; a use noted but not yet written shows already. */
    async listForAccount(accountId: string): Promise<AccountKey[]> {
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
    async createForMember(
      member: ActingMember,
      input: { name: string; tier: Tier },
      origin: RequestOrigin,
    ): Promise<MintedKey> {
      const minted = generateKey(input.tier);
      const at = new Date(clock.now());
      const createdAt = await db.$transaction(async (tx) => {
        const account = await tx.account.findUnique({ where: { id: member.accountId }, select: { plan: true } });
        if (!account) throw notFound('Account');
        if (TIERS.indexOf(input.tier) > planRank(account.plan)) throw aboveThePlan(account.plan, input.tier);
        await assertRoomForKey(tx, member.accountId);
        const row = await insertKey(tx, {
          accountId: member.accountId,
          prefix: minted.prefix,
          secretHash: hashSecret(minted.secret),
          tier: input.tier,
          name: input.name,
          createdBy: member.userId,
          createdAt: at,
        });
        await appendAudit(
          prismaSql(tx),
          auditEntry({
            accountId: member.accountId,
            at,
            action: 'api_key.created',
            resource: `api_key:${minted.prefix}`,
            actorMember: { userId: member.userId, email: member.email, role: member.role },
            origin,
            details: { tier: input.tier, name: input.name, via: 'dashboard' },
          }),
        );
        return row.createdAt;
      });
      return {
        key: minted.key,
        prefix: minted.prefix,
        name: input.name,
        tier: input.tier,
        createdAt: createdAt.toISOString(),
      };
    },
  };
}

import {
  accountById,
  accountOfAttestation,
  accountOfKey,
  accountsNamed,
  type SupportAccountRow,
} from '../accounts/lookup-store.ts';
import type { AccountService, Plan } from '../accounts/service.ts';
import type { MemberActor, RequestOrigin } from '../audit/entry.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import { TIERS, type Tier } from '../keys/format.ts';
import type { KeyService } from '../keys/service.ts';
import { ONCHAIN_MONTHLY_QUOTA, periodOf } from '../limits/quota.ts';
import { replayDelivery } from '../webhooks/service.ts';
import { supportDeliveries } from '../webhooks/store.ts';
import type { SignedIn } from './sessions.ts';
import { keysWithUsage } from './support-store.ts';

/** How many accounts a search answers, and dead deliveries an account's page lists. */
const FIND_LIMIT = 20;
const DEAD_LIMIT = 50;

/** A support-team member as the audit log names them in the account they act in. */
export function supportActor(signedIn: SignedIn): MemberActor {
  return { userId: signedIn.user.id, email: signedIn.user.email, role: 'support', as: 'support' };
}

const summary = (row: SupportAccountRow) => ({
  accountId: row.id,
  name: row.name,
  plan: row.plan,
  createdAt: row.createdAt.toISOString(),
});

/** A support action: who (the support member) and the request it came in. */
interface SupportAct {
  actor: MemberActor;
  origin: RequestOrigin;
}

export type SupportService = ReturnType<typeof createSupportService>;

/**
 * The operator's support view (docs/decisions.md, "Dashboard sign-in"): find any account, read its usage and dead
 * deliveries, set its plan,
 * revoke a key, replay a dead delivery. Changes go through the features' own services, audited in the account
 * with the support member as actor.
 */
export function createSupportService(deps: { db: Db; clock: Clock; keys: KeyService; accounts: AccountService }) {
  const { db, clock } = deps;

  async function existing(accountId: string): Promise<SupportAccountRow> {
    const row = await accountById(db, accountId);
    if (!row) throw notFound(`Account ${accountId}`);
    return row;
  }

  return {
    /** Accounts by a part of their name, or exactly by a key prefix or an attestation uid. */
    async find(query: string) {
      const q = query.trim();
      const exact = [
        /^[0-9a-f]{12}$/.test(q) ? await accountOfKey(db, q) : undefined,
        /^0x[0-9a-fA-F]{64}$/.test(q) ? await accountOfAttestation(db, q.toLowerCase()) : undefined,
      ];
      const named = await accountsNamed(db, q, FIND_LIMIT);
      const seen = new Set<string>();
      return [...exact, ...named]
        .filter((row): row is SupportAccountRow => row !== undefined && !seen.has(row.id) && !!seen.add(row.id))
        .slice(0, FIND_LIMIT)
        .map(summary);
    },

    /** An account with this month's use of each key against its quota and its dead deliveries, newest first. */
    async account(accountId: string) {
      const row = await existing(accountId);
      const keys = await keysWithUsage(db, accountId, periodOf(clock.now()));
      const dead = await supportDeliveries(db, { state: 'dead', account: row.name, limit: DEAD_LIMIT });
      return {
        ...summary(row),
        usage: keys.map((key) => {
          const quota = TIERS.includes(key.tier as Tier) ? ONCHAIN_MONTHLY_QUOTA[key.tier as Tier] : 0;
          return {
            prefix: key.prefix,
            name: key.name,
            tier: key.tier,
            used: key.used,
            // null: no limit (enterprise), which JSON cannot say as Infinity
            quota: Number.isFinite(quota) ? quota : null,
            revokedAt: key.revokedAt?.toISOString() ?? null,
          };
        }),
        deadDeliveries: dead.map((d) => ({
          id: d.id,
          subscriptionUrl: d.url,
          event: d.event,
          attempts: d.attempts,
          createdAt: d.createdAt,
        })),
      };
    },

    setPlan: (act: SupportAct, accountId: string, plan: Plan) => deps.accounts.setPlan(accountId, plan, act),

    /** Revokes one of the account's keys (NOT_FOUND for a key of another account); a revoked key stays revoked. */
    async revokeKey(act: SupportAct, accountId: string, prefix: string) {
      const revoked = await deps.keys.revoke(prefix, { accountId, ...act });
      if (!revoked) throw notFound(`Key ${prefix} of account ${accountId}`);
      return { prefix: revoked.prefix, revokedAt: revoked.revokedAt! };
    },

    /** Sends a dead delivery of the account again, with the same X-Service-Delivery (replay is support's alone). */
    async replayDelivery(act: SupportAct, accountId: string, deliveryId: string) {
      const outcome = await replayDelivery(db, clock, deliveryId, { member: act.actor, accountId, origin: act.origin });
      if (!outcome) throw notFound(`Delivery ${deliveryId} of account ${accountId}`);
      if (!outcome.replayed) {
        const why =
          outcome.state === 'subscription deleted'
            ? 'its subscription was deleted'
            : `it is ${outcome.state}: only dead deliveries can be replayed`;
        throw new AppError('VALIDATION_FAILED', `Delivery ${deliveryId} cannot be replayed: ${why}.`, {
          errors: [{ path: 'deliveryId', message: why }],
        });
      }
      return { id: deliveryId, state: outcome.state };
    },
  };
}

import { requestOrigin } from '../audit/entry.ts';
import { router, supportProcedure } from '../trpc.ts';
import {
  accountInput,
  findInput,
  foundAccounts,
  keyRevoked,
  planSet,
  replayed,
  replayInput,
  revokeKeyInput,
  setPlanInput,
  supportAccount,
} from './contracts.ts';
import type { SignedIn } from './sessions.ts';
import { supportActor } from './support.ts';

/** A support member's change: audited in the target account with them as actor (`as: 'support'`). */
const act = (ctx: { signedIn: SignedIn; requestId: string; ip: string }) => ({
  actor: supportActor(ctx.signedIn),
  origin: requestOrigin(ctx),
});

/** The operator's support team (docs/decisions.md, "Dashboard sign-in"): any account, no account header. */
export const supportDashboardRouter = router({
  find: supportProcedure
    .input(findInput)
    .output(foundAccounts)
    .query(({ ctx, input }) => ctx.services.dashboard.support.find(input.query)),

  account: supportProcedure
    .input(accountInput)
    .output(supportAccount)
    .query(({ ctx, input }) => ctx.services.dashboard.support.account(input.accountId)),

  setPlan: supportProcedure
    .input(setPlanInput)
    .output(planSet)
    .mutation(({ ctx, input }) => ctx.services.dashboard.support.setPlan(act(ctx), input.accountId, input.plan)),

  revokeKey: supportProcedure
    .input(revokeKeyInput)
    .output(keyRevoked)
    .mutation(({ ctx, input }) => ctx.services.dashboard.support.revokeKey(act(ctx), input.accountId, input.prefix)),

  replayDelivery: supportProcedure
    .input(replayInput)
    .output(replayed)
    .mutation(({ ctx, input }) =>
      ctx.services.dashboard.support.replayDelivery(act(ctx), input.accountId, input.deliveryId),
    ),
});

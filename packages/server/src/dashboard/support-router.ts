import { z } from 'zod';
import { router, supportProcedure } from '../trpc.ts';
import { requestOrigin } from '../audit/entry.ts';
import { PLANS } from './accounts.ts';
import type { SignedIn } from './sessions.ts';
import { supportActor } from './support.ts';

const accountId = z.uuid();
const account = { accountId: z.string(), name: z.string(), plan: z.string(), createdAt: z.string() };

/** A support member's change: audited in the target account with them as actor (`as: 'support'`). */
const act = (ctx: { signedIn: SignedIn; requestId: string; ip: string }) => ({
  actor: supportActor(ctx.signedIn),
  origin: requestOrigin(ctx),
});

/** The operator's support team (docs/decisions.md, "Dashboard sign-in"): any account, no account header. */
export const supportRouter = router({
  find: supportProcedure
    .input(z.object({ query: z.string().trim().min(1).max(100) }))
    .output(z.array(z.object(account)))
    .query(({ ctx, input }) => ctx.services.dashboard.support.find(input.query)),

  account: supportProcedure
    .input(z.object({ accountId }))
    .output(
      z.object({
        ...account,
        usage: z.array(
          z.object({
            prefix: z.string(),
            name: z.string().nullable(),
            tier: z.string(),
            used: z.number(),
            quota: z.number().nullable(),
            revokedAt: z.string().nullable(),
          }),
        ),
        deadDeliveries: z.array(
          z.object({
            id: z.string(),
            subscriptionUrl: z.string(),
            event: z.string(),
            attempts: z.number(),
            createdAt: z.string(),
          }),
        ),
      }),
    )
    .query(({ ctx, input }) => ctx.services.dashboard.support.account(input.accountId)),

  setPlan: supportProcedure
    .input(z.object({ accountId, plan: z.enum(PLANS) }))
    .output(z.object({ accountId: z.string(), plan: z.enum(PLANS) }))
    .mutation(({ ctx, input }) => ctx.services.dashboard.support.setPlan(act(ctx), input.accountId, input.plan)),

  revokeKey: supportProcedure
    .input(z.object({ accountId, prefix: z.string().regex(/^[0-9a-f]{12}$/, 'must be a 12-hex-character key prefix') }))
    .output(z.object({ prefix: z.string(), revokedAt: z.string() }))
    .mutation(({ ctx, input }) => ctx.services.dashboard.support.revokeKey(act(ctx), input.accountId, input.prefix)),

  replayDelivery: supportProcedure
    .input(z.object({ accountId, deliveryId: z.uuid() }))
    .output(z.object({ id: z.string(), state: z.literal('pending') }))
    .mutation(({ ctx, input }) =>
      ctx.services.dashboard.support.replayDelivery(act(ctx), input.accountId, input.deliveryId),
    ),
});

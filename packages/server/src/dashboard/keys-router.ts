import { memberActor, requestOrigin } from '../audit/entry.ts';
import { z } from 'zod';
import { notFound } from '../errors.ts';
import { memberProcedure, router } from '../trpc.ts';
import { createKeyInput, tierSchema } from '../rules.ts';

const tier = tierSchema;
const prefix = z.string().regex(/^[0-9a-f]{12}$/, 'a key prefix is 12 hexadecimal characters');
const iso = z.string();

const accountKey = z.object({
  prefix: z.string(),
  name: z.string().nullable(),
  tier,
  createdBy: z.object({ name: z.string(), email: z.string() }).nullable(),
  createdAt: iso,
  lastUsedAt: iso.nullable(),
  revokedAt: iso.nullable(),
  state: z.enum(['active', 'revoked']),
});

/** The dashboard's API keys page: list (viewer), mint within the plan (developer), revoke (admin). */
export const keysDashboardRouter = router({
  list: memberProcedure('viewer')
    .output(z.array(accountKey))
    .query(({ ctx }) => ctx.services.dashboard.keys.list(ctx.member.accountId)),

  create: memberProcedure('developer')
    .input(createKeyInput)
    .output(z.object({ key: z.string(), prefix: z.string(), name: z.string(), tier, createdAt: iso }))
    .mutation(async ({ ctx, input }) => {
      await ctx.services.dashboard.standing.require(ctx.signedIn.user, ctx.member.accountId, 'minting a key');
      return ctx.services.dashboard.keys.create(ctx.member, input, requestOrigin(ctx));
    }),

  /** Permanent; the key answers 401 API_KEY_REVOKED from its next call on. Another account's key is NOT_FOUND. */
  revoke: memberProcedure('admin')
    .input(z.strictObject({ prefix }))
    .output(z.object({ prefix: z.string(), revokedAt: iso }))
    .mutation(async ({ ctx, input }) => {
      const { member } = ctx;
      const revoked = await ctx.services.keys.revoke(input.prefix, {
        accountId: member.accountId,
        actor: memberActor(member),
        origin: requestOrigin(ctx),
      });
      if (!revoked?.revokedAt) throw notFound(`API key ${input.prefix}`);
      return { prefix: revoked.prefix, revokedAt: revoked.revokedAt };
    }),
});

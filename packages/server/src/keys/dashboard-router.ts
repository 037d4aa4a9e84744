import { memberActor, requestOrigin } from '../audit/entry.ts';
import { notFound } from '../errors.ts';
import { memberProcedure, router } from '../trpc.ts';
import { accountKeyList, createKeyInput, keyPrefixInput, mintedKey, revokedKey } from './contracts.ts';

/** The dashboard's API keys page: list (viewer), mint within the plan (developer), revoke (admin). */
export const keysDashboardRouter = router({
  list: memberProcedure('viewer')
    .output(accountKeyList)
    .query(({ ctx }) => ctx.services.memberKeys.list(ctx.member.accountId)),

  create: memberProcedure('developer')
    .input(createKeyInput)
    .output(mintedKey)
    .mutation(async ({ ctx, input }) => {
      await ctx.services.standing.require(ctx.signedIn.user, ctx.member.accountId, 'minting a key');
      return ctx.services.memberKeys.create(ctx.member, input, requestOrigin(ctx));
    }),

  /** Permanent; the key answers 401 API_KEY_REVOKED from its next call on. Another account's key is NOT_FOUND. */
  revoke: memberProcedure('admin')
    .input(keyPrefixInput)
    .output(revokedKey)
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

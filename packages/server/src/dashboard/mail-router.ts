import { z } from 'zod';
import { memberProcedure, publicProcedure, router, sessionProcedure } from '../trpc.ts';

const preferences = z.strictObject({
  /** The account's on-chain quota reached 80 % or 100 % this month. */
  quota: z.boolean(),
  /** Webhook deliveries went dead (one digest an hour at most). */
  webhooks: z.boolean(),
});

/** The dashboard's mail: whether it is on and the address confirmed (the banner), and the member's notifications. */
export const mailRouter = router({
  /** No session: the sign-in page offers "Forgot password?" only when mail goes out. */
  available: publicProcedure
    .output(z.object({ mail: z.boolean() }))
    .query(({ ctx }) => ({ mail: ctx.services.mail.on })),

  status: sessionProcedure
    .output(z.object({ mail: z.boolean(), emailVerified: z.boolean() }))
    .query(async ({ ctx }) => ({
      mail: ctx.services.mail.on,
      emailVerified: await ctx.services.mail.emailVerified(ctx.signedIn.user.id),
    })),

  preferences: memberProcedure('viewer')
    .output(preferences)
    .query(({ ctx }) => ctx.services.mail.preferences(ctx.member.accountId, ctx.member.userId)),

  setPreferences: memberProcedure('viewer')
    .input(preferences)
    .output(preferences)
    .mutation(({ ctx, input }) => ctx.services.mail.setPreferences(ctx.member.accountId, ctx.member.userId, input)),
});

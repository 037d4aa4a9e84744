import { memberProcedure, publicProcedure, router, sessionProcedure } from '../trpc.ts';
import { mailAvailable, mailStatus, preferences } from './contracts.ts';

/** The dashboard's mail: whether it is on and the address confirmed (the banner), and the member's notifications. */
export const mailDashboardRouter = router({
  /** No session: the sign-in page offers "Forgot password?" only when mail goes out. */
  available: publicProcedure.output(mailAvailable).query(({ ctx }) => ({ mail: ctx.services.mail.on })),

  status: sessionProcedure.output(mailStatus).query(async ({ ctx }) => ({
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

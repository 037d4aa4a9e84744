import { publicProcedure, router, sessionProcedure } from '../trpc.ts';
import { me, sessionInput, sessionList, sessionRevoked, signupState } from './contracts.ts';

/** Who is signed in, the accounts they may act in, and their sessions (by id: a token never reaches the page). */
export const sessionDashboardRouter = router({
  /** Whether anyone may sign up (DASHBOARD_SIGNUP): the sign-in page offers sign-up only when it is open. */
  signup: publicProcedure.output(signupState).query(({ ctx }) => ({ signup: ctx.services.dashboard.signup })),

  me: sessionProcedure.output(me).query(async ({ ctx }) => {
    const { user } = ctx.signedIn;
    return {
      user: { id: user.id, name: user.name, email: user.email },
      memberships: await ctx.services.dashboard.sessions.memberships(user.id),
      support: user.support,
      signup: ctx.services.dashboard.signup,
      webhookPrivateUrls: ctx.services.dashboard.webhookPrivateUrls,
    };
  }),

  /** The person's signed-in sessions, newest first. */
  sessions: sessionProcedure.output(sessionList).query(({ ctx }) => ctx.services.dashboard.sessions.list(ctx.signedIn)),

  /** Signs one of the person's sessions out (its next request is refused). */
  revokeSession: sessionProcedure
    .input(sessionInput)
    .output(sessionRevoked)
    .mutation(async ({ ctx, input }) => {
      await ctx.services.dashboard.sessions.revoke(ctx.signedIn, input.id);
      return { revoked: true as const };
    }),
});

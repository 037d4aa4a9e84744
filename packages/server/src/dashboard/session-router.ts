import { z } from 'zod';
import { publicProcedure, router, sessionProcedure } from '../trpc.ts';
import { ROLES } from './roles.ts';

const membership = z.object({
  accountId: z.string(),
  accountName: z.string(),
  role: z.enum(ROLES),
  plan: z.string(),
});

/** Who is signed in, and the accounts they may act in. */
export const sessionRouter = router({
  /** Whether anyone may sign up (DASHBOARD_SIGNUP): the sign-in page offers sign-up only when it is open. */
  signup: publicProcedure
    .output(z.object({ signup: z.enum(['open', 'closed']) }))
    .query(({ ctx }) => ({ signup: ctx.services.dashboard.signup })),

  me: sessionProcedure
    .output(
      z.object({
        user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
        memberships: z.array(membership),
        support: z.boolean(),
        signup: z.enum(['open', 'closed']),
      }),
    )
    .query(async ({ ctx }) => {
      const { user } = ctx.signedIn;
      return {
        user: { id: user.id, name: user.name, email: user.email },
        memberships: await ctx.services.dashboard.sessions.memberships(user.id),
        support: user.support,
        signup: ctx.services.dashboard.signup,
      };
    }),
});

import { z } from 'zod';
import { router, sessionProcedure } from '../trpc.ts';
import { ROLES } from './roles.ts';

const membership = z.object({
  accountId: z.string(),
  accountName: z.string(),
  role: z.enum(ROLES),
  plan: z.string(),
});

/** Who is signed in, and the accounts they may act in. */
export const sessionRouter = router({
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

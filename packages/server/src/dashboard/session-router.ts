import { z } from 'zod';
import { publicProcedure, router, sessionProcedure } from '../trpc.ts';
import { ROLES } from './roles.ts';

const membership = z.object({
  accountId: z.string(),
  accountName: z.string(),
  role: z.enum(ROLES),
  plan: z.string(),
});

const sessionRow = z.object({
  id: z.string(),
  /** The session this call came with. */
  current: z.boolean(),
  ipAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
  createdAt: z.string(),
  /** When the session was last slid on (at most once an hour). */
  updatedAt: z.string(),
  expiresAt: z.string(),
});

/** Who is signed in, the accounts they may act in, and their sessions (by id: a token never reaches the page). */
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
        /** Whether webhook receivers may be http, loopback or private (WEBHOOK_ALLOW_PRIVATE_URLS). */
        webhookPrivateUrls: z.boolean(),
      }),
    )
    .query(async ({ ctx }) => {
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
  sessions: sessionProcedure
    .output(z.array(sessionRow))
    .query(({ ctx }) => ctx.services.dashboard.sessions.list(ctx.signedIn)),

  /** Signs one of the person's sessions out (its next request is refused). */
  revokeSession: sessionProcedure
    .input(z.object({ id: z.uuid() }))
    .output(z.object({ revoked: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await ctx.services.dashboard.sessions.revoke(ctx.signedIn, input.id);
      return { revoked: true as const };
    }),
});

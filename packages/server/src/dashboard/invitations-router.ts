import { z } from 'zod';
import { publicProcedure, router, sessionProcedure } from '../trpc.ts';
import { accountNameSchema } from './accounts.ts';
import { requestOrigin } from '../audit/entry.ts';
import { INVITATION_KINDS } from './invitation-store.ts';

/** An invitation link's last path segment (newInvitationToken: 32 bytes, base64url). */
const token = z.string().min(1).max(200);

/** Opening an invitation link: what it is for (before sign-in), and using it once signed in. */
export const invitationsRouter = router({
  /** No session: the person may not have an account yet. Limited per client address, as every public route. */
  get: publicProcedure
    .input(z.object({ token }))
    .output(
      z.object({
        kind: z.enum(INVITATION_KINDS),
        accountName: z.string().nullable(),
        email: z.string().nullable(),
        role: z.string(),
        expiresAt: z.string(),
        adoptable: z
          .array(z.object({ id: z.string(), name: z.string() }))
          .describe("a setup link's: accounts the CLI opened with no member yet, which it may take over"),
      }),
    )
    .query(async ({ ctx, input }) => {
      ctx.responseHeaders['Cache-Control'] = 'no-store';
      return ctx.services.dashboard.invitations.view(input.token);
    }),

  accept: sessionProcedure
    .input(
      z.object({
        token,
        accountName: accountNameSchema.optional().describe('a setup link: the new account it opens'),
        accountId: z.uuid().optional().describe('a setup link: the account the CLI opened that it takes over'),
      }),
    )
    .output(z.object({ kind: z.enum(INVITATION_KINDS), accountId: z.string().nullable() }))
    .mutation(({ ctx, input }) =>
      ctx.services.dashboard.invitations.accept(ctx.signedIn.user, input, requestOrigin(ctx)),
    ),
});

/** Opening a new account without an invitation: only while DASHBOARD_SIGNUP is open. */
export const accountsRouter = router({
  create: sessionProcedure
    .input(z.object({ name: accountNameSchema }))
    .output(z.object({ accountId: z.string() }))
    .mutation(({ ctx, input }) => {
      const { id: userId, email, emailVerified } = ctx.signedIn.user;
      return ctx.services.dashboard.accounts.create({ userId, email, emailVerified }, input.name, requestOrigin(ctx));
    }),
});

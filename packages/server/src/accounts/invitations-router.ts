import { requestOrigin } from '../audit/entry.ts';
import { publicProcedure, router, sessionProcedure } from '../trpc.ts';
import { acceptInput, accepted, invitationTokenInput, invitationView } from './contracts.ts';

/** Opening an invitation link: what it is for (before sign-in), and using it once signed in. */
export const invitationsDashboardRouter = router({
  /** No session: the person may not have an account yet. Limited per client address, as every public route. */
  get: publicProcedure
    .input(invitationTokenInput)
    .output(invitationView)
    .query(async ({ ctx, input }) => {
      ctx.responseHeaders['Cache-Control'] = 'no-store';
      return ctx.services.invitations.view(input.token);
    }),

  accept: sessionProcedure
    .input(acceptInput)
    .output(accepted)
    .mutation(({ ctx, input }) => ctx.services.invitations.accept(ctx.signedIn.user, input, requestOrigin(ctx))),
});

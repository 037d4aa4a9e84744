import { requestOrigin } from '../audit/entry.ts';
import { router, sessionProcedure } from '../trpc.ts';
import { openAccountInput, openedAccount } from './contracts.ts';

/** Opening a new account without an invitation: only while DASHBOARD_SIGNUP is open. */
export const accountsDashboardRouter = router({
  create: sessionProcedure
    .input(openAccountInput)
    .output(openedAccount)
    .mutation(({ ctx, input }) => {
      const { id: userId, email, emailVerified } = ctx.signedIn.user;
      return ctx.services.accounts.create({ userId, email, emailVerified }, input.name, requestOrigin(ctx));
    }),
});

import { memberProcedure, router } from '../trpc.ts';
import { entryListInput, entryListPage } from './dashboard-contracts.ts';

/**
 * The dashboard's audit log page (viewer): the account's entries, newest first in keyset pages. Its CSV / JSON
 * download is a plain GET beside the router (dashboard-export-mount.ts), since a browser downloads it.
 */
export const auditDashboardRouter = router({
  /** Filters: action (exact), actor (a key prefix or a member's email), from (inclusive) and to (exclusive). */
  list: memberProcedure('viewer')
    .input(entryListInput)
    .output(entryListPage)
    .query(({ ctx, input }) => ctx.services.audit.listForAccount(ctx.member.accountId, input)),
});

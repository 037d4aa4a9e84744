import { memberProcedure, router } from '../trpc.ts';
import { overview } from './contracts.ts';

/** The dashboard's first page (viewer and up): quota use, attestations and webhook deliveries over time. */
export const overviewDashboardRouter = router({
  get: memberProcedure('viewer')
    .output(overview)
    .query(({ ctx }) => ctx.services.overview.get(ctx.member)),
});

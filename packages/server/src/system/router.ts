import { z } from 'zod';
import { router, unmeteredProcedure } from '../trpc.ts';

const tags = ['system'];
const componentState = z.enum(['ok', 'degraded', 'unknown']);

export const systemRouter = router({
  health: unmeteredProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/healthz',
        tags,
        protect: false,
        summary: 'Liveness: the process answers, with what is degraded',
        description:
          'Always 200 while the process answers. `status` is `degraded` when a part it can serve without is not ' +
          '`ok`: `chain` (the RPC does not answer) or `relayer` (its balance is below the minimum; `unknown` without ' +
          'the RPC). On-chain writes answer 503 CHAIN_UNAVAILABLE meanwhile; `reasons` says why.',
      },
    })
    .input(z.strictObject({}))
    .output(
      z.object({
        status: z.enum(['ok', 'degraded']),
        components: z.record(z.string(), componentState),
        reasons: z.record(
          z.string(),
          z.string().meta({ example: 'the relayer holds less than RELAYER_MIN_BALANCE_ETH' }),
        ),
      }),
    )
    .query(({ ctx }) => ctx.services.health.health()),

  ready: unmeteredProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/readyz',
        tags,
        protect: false,
        summary: 'Readiness: this replica can serve its traffic',
        description:
          'The database answers (and Redis when the rate limits live there). The chain is not a component: ' +
          'see /healthz. 503 NOT_READY names the failing components in details.components.',
      },
      docs: { errors: { 503: 'NOT_READY: details.components names what is failing' } },
    })
    .input(z.strictObject({}))
    .output(z.object({ status: z.literal('ready'), components: z.record(z.string(), z.literal('ok')) }))
    .query(({ ctx }) => ctx.services.health.ready()),
});

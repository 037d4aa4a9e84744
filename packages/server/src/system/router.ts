import { z } from 'zod';
import { router, unmeteredProcedure } from '../trpc.ts';

const tags = ['system'];

export const systemRouter = router({
  health: unmeteredProcedure
    .meta({
      openapi: { method: 'GET', path: '/healthz', tags, protect: false, summary: 'Liveness: the process answers' },
    })
    .input(z.strictObject({}))
    .output(z.object({ status: z.literal('ok') }))
    .query(({ ctx }) => ctx.services.health.health()),

  ready: unmeteredProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/readyz',
        tags,
        protect: false,
        summary: 'Readiness: every component answers',
        description: '503 NOT_READY names the failing components in details.components.',
      },
      docs: { errors: { 503: 'NOT_READY: details.components names what is failing' } },
    })
    .input(z.strictObject({}))
    .output(z.object({ status: z.literal('ready'), components: z.record(z.string(), z.literal('ok')) }))
    .query(({ ctx }) => ctx.services.health.ready()),
});

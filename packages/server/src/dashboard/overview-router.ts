import { z } from 'zod';
import { memberProcedure, router } from '../trpc.ts';

const day = z.string().regex(/^\d{4}-\d\d-\d\d$/);

/** The dashboard's first page (viewer and up): quota use, attestations and webhook deliveries over time. */
export const overviewRouter = router({
  get: memberProcedure('viewer')
    .output(
      z.object({
        period: z.string(),
        resetsAt: z.string(),
        plan: z.string(),
        account: z
          .object({ tier: z.string(), used: z.number(), quota: z.number().nullable().describe('null: unlimited') })
          .describe("all the account's keys together, against its tier's monthly on-chain quota"),
        keys: z.array(
          z.object({
            prefix: z.string(),
            name: z.string().nullable(),
            tier: z.string(),
            used: z.number(),
            quota: z.number().nullable().describe('null: unlimited'),
            revokedAt: z.string().nullable(),
          }),
        ),
        daily: z.array(
          z.object({
            day,
            onchainHuman: z.number(),
            onchainAi: z.number(),
            offchainHuman: z.number(),
            offchainAi: z.number(),
          }),
        ),
        deliveries: z.array(
          z.object({
            day,
            completed: z.number(),
            failed: z.number().describe('an attempt failed and a retry is due'),
            dead: z.number(),
          }),
        ),
      }),
    )
    .query(({ ctx }) => ctx.services.dashboard.overview.get(ctx.member)),
});

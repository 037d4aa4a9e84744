import { z } from 'zod';
import { authedProcedure, router } from '../trpc.ts';

const rate = z
  .object({
    limit: z.number().int().min(0).max(1_000_000).meta({ example: 600 }),
    remaining: z.number().int().min(0).max(1_000_000).meta({ example: 598 }),
    windowSeconds: z.number().int().min(1).max(3600).meta({ example: 60 }),
    resetsInSeconds: z.number().int().min(0).max(3600).meta({ example: 12 }),
  })
  .meta({ description: 'The sliding minute, this call counted.' });

const onchain = z
  .object({
    period: z.string().meta({ example: '2026-11' }),
    used: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).meta({ example: 17 }),
    limit: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().meta({ example: 2000 }),
    remaining: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().meta({ example: 1983 }),
    resetsAt: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).meta({
      example: 1796083200000,
      description: 'When the quota resets: the first millisecond of the next UTC month (ms since the epoch).',
    }),
  })
  .meta({ description: "This UTC month's on-chain quota; limit and remaining null when unlimited." });

const usageOutput = z
  .object({
    key: z.object({
      prefix: z.string().meta({ example: '3f1c0a9b2d7e' }),
      tier: z.enum(['free', 'pro', 'enterprise']),
      rate,
      onchain,
    }),
    account: z.object({
      name: z.string().meta({ example: 'acme' }),
      plan: z.enum(['free', 'pro', 'enterprise']),
      rate,
      onchain,
    }),
  })
  .meta({ id: 'Usage' });

export const usageRouter = router({
  get: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/v1/usage',
        tags: ['usage'],
        protect: true,
        summary: "Your key's and account's usage",
        description:
          "The calling key's tier, its per-minute window (this call counted) and this month's on-chain quota, and the same for its account, whose limits bind all its keys together.",
      },
    })
    .input(z.strictObject({}))
    .output(usageOutput)
    .query(({ ctx }) => ctx.services.usage.of(ctx.auth, ctx.rate)),
});

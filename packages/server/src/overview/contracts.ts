import { z } from 'zod';

// The dashboard's first page: what its one procedure answers.

const day = z.string().regex(/^\d{4}-\d\d-\d\d$/);
const quota = z.number().nullable().describe('null: unlimited');

export const overview = z.object({
  period: z.string(),
  resetsAt: z.string(),
  plan: z.string(),
  account: z
    .object({ tier: z.string(), used: z.number(), quota })
    .describe("all the account's keys together, against its tier's monthly on-chain quota"),
  keys: z.array(
    z.object({
      prefix: z.string(),
      name: z.string().nullable(),
      tier: z.string(),
      used: z.number(),
      quota,
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
});

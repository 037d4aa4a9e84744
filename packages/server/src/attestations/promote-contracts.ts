import { z } from 'zod';
import { createdAttestation, uidSchema } from './contracts.ts';

/** Promotions at most per batch request: a batch of creates holds as many. */
export const MAX_PROMOTIONS = 100;

export const promoteInput = z.strictObject({ uid: uidSchema });

export const promotedAttestation = createdAttestation
  .extend({
    offchainUid: uidSchema.meta({ description: 'The off-chain attestation this one puts on chain' }),
  })
  .meta({ id: 'PromotedAttestation' });
export type PromotedAttestation = z.infer<typeof promotedAttestation>;

export const promoteBatchInput = z.strictObject({
  uids: z
    .array(uidSchema)
    .min(1, 'must hold at least one uid')
    .max(MAX_PROMOTIONS, `must hold at most ${MAX_PROMOTIONS} uids`)
    .superRefine((uids, ctx) => {
      const seen = new Set<string>();
      uids.forEach((uid, index) => {
        const key = uid.toLowerCase();
        if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [index], message: 'is listed twice' });
        seen.add(key);
      });
    }),
});

/** A member the service refused, as the error body of a single promotion would say it. */
const refusal = z.object({
  code: z.string().meta({ example: 'ALREADY_REVOKED' }),
  message: z.string().meta({ example: 'Attestation 0x4f1b… is revoked: a revoked claim is not put on chain.' }),
  details: z.record(z.string(), z.unknown()),
});

export const promoteBatchOutput = z.object({
  results: z
    .array(
      z.object({
        offchainUid: uidSchema,
        attestation: promotedAttestation.nullable().meta({ description: 'The on-chain attestation; null if refused' }),
        error: refusal.nullable().meta({ description: 'Why this member was refused; null if promoted' }),
      }),
    )
    .meta({ description: 'One per uid, in request order' }),
});
export type PromoteBatchResult = z.infer<typeof promoteBatchOutput>;

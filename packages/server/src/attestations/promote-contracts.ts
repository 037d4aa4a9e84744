import { z } from 'zod';
import { createdAttestation, uidSchema } from './contracts.ts';
import { checkDelegation, delegationSchema } from './delegated-contracts.ts';

/** Promotions at most per batch request: a batch of creates holds as many. */
const MAX_PROMOTIONS = 100;

export const promoteInput = z
  .strictObject({
    uid: uidSchema,
    delegation: delegationSchema.optional().meta({
      description:
        "Only for an attestation your registered attester signed, and then required: that attester's EAS delegated request over the same fields (nonce and deadline, no refUID), as for an on-chain create with a delegation. The relayer still pays the gas.",
    }),
  })
  .superRefine((value, ctx) => {
    if (value.delegation)
      checkDelegation('onchain', value.delegation, (field, message) =>
        ctx.addIssue({ code: 'custom', path: ['delegation', field], message }),
      );
  });

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

import { z } from 'zod';
import { createAttestationInput, createdAttestation, hexHash } from './contracts.ts';

export const batchInput = z.strictObject({
  attestations: z
    .array(createAttestationInput)
    .min(1, 'must hold at least one attestation')
    .max(100, 'must hold at most 100 attestations'),
});

/** A batch item refused alone (its refUid): the error body it would have had as a single create, and its index. */
const failedItem = z.object({
  index: z.number().int().min(0).meta({ example: 3 }),
  code: z.string().meta({ example: 'NOT_FOUND' }),
  message: z.string().meta({ example: 'refUid 0x… is not an attestation of this service.' }),
  details: z.record(z.string(), z.unknown()),
});

export const batchOutput = z.object({
  batchId: z.string().meta({ example: '0b7f3c1e-4d2a-4f8e-9a61-2c5d8e9f0a13' }),
  txHash: hexHash.nullable(),
  attestations: z.array(createdAttestation).meta({ description: 'The items made, in request order.' }),
  errors: z.array(failedItem).optional().meta({
    description: 'Items refused alone (an unknown or off-chain refUid), by request index; absent when none was.',
  }),
});

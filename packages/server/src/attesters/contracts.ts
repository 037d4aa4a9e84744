import { z } from 'zod';
import { timestamp } from '../http/openapi-fields.ts';
import { addressSchema as anyAddress, signatureSchema as anySignature } from '../rules.ts';

const EXAMPLE_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** An Ethereum address in any case (checksummed or not); the service answers checksummed. */
export const addressSchema = anyAddress.meta({ example: EXAMPLE_ADDRESS });

/** A 65-byte ECDSA signature as one hex string (r ‖ s ‖ v), as viem and ethers return it. */
export const signatureSchema = anySignature.meta({ example: `0x${'ab'.repeat(64)}1b` });

export const challengeInput = z.strictObject({
  address: addressSchema.meta({ description: 'The address your account wants to sign attestations with.' }),
});
export const challengeOutput = z
  .object({
    id: z.string().meta({ example: '5b0c8a8e-8f1e-4a57-9a0e-0f3b1f3c2d11' }),
    address: addressSchema,
    message: z.string().meta({
      description: 'The text to sign as it is (EIP-191 personal_sign).',
      example: 'Attestation Service: register an attester\n\nI control 0x7099…',
    }),
    expiresAt: timestamp(),
  })
  .meta({ id: 'AttesterChallenge' });

export const registerInput = z.strictObject({
  challengeId: z.uuid('must be the id of a challenge').meta({ example: '5b0c8a8e-8f1e-4a57-9a0e-0f3b1f3c2d11' }),
  signature: signatureSchema.meta({ description: "The challenge's message signed by its address (EIP-191)." }),
});

export const attesterOutput = z
  .object({
    address: addressSchema,
    createdAt: timestamp(),
  })
  .meta({ id: 'Attester' });
export type AttesterView = z.infer<typeof attesterOutput>;

export const attesterList = z.object({ data: z.array(attesterOutput) });

export const addressInput = z.strictObject({ address: addressSchema });

export const nonceOutput = z
  .object({
    address: addressSchema,
    nonce: z.string().meta({
      description: "The EAS nonce the attester's next delegated on-chain request must be signed for (decimal).",
      example: '0',
    }),
    signing: z
      .object({
        chainId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).meta({ example: 31337 }),
        eas: addressSchema.meta({ description: 'The EAS contract: the EIP-712 verifyingContract.' }),
        easVersion: z
          .string()
          .meta({ description: "EAS `version()`: the EIP-712 domain's version.", example: '1.4.0' }),
        schemaUid: z.string().meta({ example: `0x${'5c'.repeat(32)}` }),
      })
      .meta({
        description: 'What a signature is made under: the EIP-712 domains (`EAS`, `EAS Attestation`) and the schema.',
      }),
  })
  .meta({ id: 'AttesterNonce' });

import { OFFCHAIN_DOMAIN_NAME } from '@attestation-service/protocol';
import { z } from 'zod';
import { EXAMPLE_UID } from './openapi.ts';

// The signed package's contract, apart from the record's so the AI details (which carry one too) can share it.

const hex = (bytes: number, what: string, example: string) =>
  z
    .string()
    .regex(new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`), `must be ${what}: 0x followed by ${bytes * 2} hex characters`)
    .meta({ example });

export const uidSchema = hex(32, 'an attestation uid', EXAMPLE_UID).meta({ description: 'Attestation UID' });
export const hexHash = hex(32, 'a 32-byte hex value', `0x${'5c'.repeat(32)}`);
export const address = hex(20, 'an address', '0x5FbDB2315678afecb367f032d93F642f64180aa3');
/** A 64-bit EVM word too large for a JSON number, as its decimal digits. */
const uintString = (example: string) => z.string().meta({ example });

export const chainId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).meta({ example: 31337 });

export const offchainPackageSchema = z
  .object({
    sig: z.object({
      version: z.literal(2),
      uid: uidSchema,
      domain: z.object({
        name: z.literal(OFFCHAIN_DOMAIN_NAME),
        version: z.string().meta({ example: '1.3.0' }),
        chainId,
        verifyingContract: address,
      }),
      primaryType: z.literal('Attest'),
      types: z.object({
        Attest: z.array(
          z.object({ name: z.string().meta({ example: 'schema' }), type: z.string().meta({ example: 'bytes32' }) }),
        ),
      }),
      message: z.object({
        version: z.literal(2),
        schema: hexHash,
        recipient: address,
        time: uintString('1735732800').meta({ description: 'uint64 seconds, as a decimal string' }),
        expirationTime: uintString('0').meta({ description: 'uint64 seconds, as a decimal string; 0 = never' }),
        revocable: z.boolean(),
        refUID: hexHash,
        data: z.string().meta({ description: 'ABI-encoded schema data', example: `0x${'00'.repeat(32)}` }),
        salt: hexHash,
      }),
      signature: z.object({ v: z.number().int().min(27).max(28), r: hexHash, s: hexHash }),
    }),
    signer: address,
  })
  .meta({
    id: 'OffchainAttestation',
    description: "The signed EAS off-chain attestation (version 2), in the EAS SDK's package shape.",
  });

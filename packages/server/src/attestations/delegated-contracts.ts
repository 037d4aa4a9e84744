import { z } from 'zod';
import { addressSchema, signatureSchema } from '../attesters/contracts.ts';

const decimal = (digits: number, what: string, example: string) =>
  z
    .string()
    .regex(new RegExp(`^(0|[1-9][0-9]{0,${digits - 1}})$`), `must be ${what} as decimal digits`)
    .meta({ example });
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * A customer attester's signature over the attestation (docs/decisions.md, "Customer attesters"): on-chain, an EAS
 * delegated request (`attestByDelegation`); off-chain, the EAS off-chain package's EIP-712 signature.
 */
export const delegationSchema = z
  .strictObject({
    attester: addressSchema.meta({ description: 'The registered address that signed (POST /v1/attesters).' }),
    signature: signatureSchema.meta({ description: 'The EIP-712 signature, r ‖ s ‖ v, as viem and ethers return it.' }),
    nonce: decimal(78, 'a uint256', '0')
      .optional()
      .meta({ description: 'On-chain: the EAS nonce signed for (GET /v1/attesters/{address}/nonce).' }),
    deadline: decimal(20, 'a uint64', '1767225600')
      .optional()
      .meta({ description: 'On-chain: the request is void after this time (Unix seconds); 0 for never.' }),
    time: decimal(20, 'a uint64', '1735732800')
      .optional()
      .meta({ description: "Off-chain: the signed attestation's time (Unix seconds), within 10 minutes of now." }),
    salt: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes: 0x followed by 64 hex characters')
      .optional()
      .meta({
        description: "Off-chain: the signed attestation's salt (32 random bytes).",
        example: `0x${'5c'.repeat(32)}`,
      }),
  })
  .meta({ id: 'Delegation' });
export type DelegationInput = z.infer<typeof delegationSchema>;

/** The fields a delegation needs in each mode; the others must be absent. */
const DELEGATION_FIELDS = { onchain: ['nonce', 'deadline'], offchain: ['time', 'salt'] } as const;

/** The checks a schema cannot say alone: the fields of the delegation's mode, and uint64 bounds. */
export function checkDelegation(
  mode: 'onchain' | 'offchain',
  delegation: DelegationInput,
  addIssue: (path: string, message: string) => void,
) {
  const other = mode === 'onchain' ? 'offchain' : 'onchain';
  for (const field of DELEGATION_FIELDS[mode])
    if (delegation[field] === undefined) addIssue(field, `is required for an ${mode} delegation`);
  for (const field of DELEGATION_FIELDS[other])
    if (delegation[field] !== undefined) addIssue(field, `belongs to an ${other} delegation only`);
  for (const field of ['deadline', 'time'] as const) {
    const value = delegation[field];
    if (value !== undefined && BigInt(value) > UINT64_MAX) addIssue(field, 'must be at most 2^64 - 1');
  }
}

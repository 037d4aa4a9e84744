import { CONTENT_HASH_PATTERN, CONTENT_HASH_RULE } from '@attestation-service/protocol';
import { z } from 'zod';
import { hexHash, modeSchema, originSchema, revokeInput, uidSchema } from './contracts.ts';

const iso = z.string();

export const accountListInput = z.strictObject({
  type: originSchema.optional(),
  mode: modeSchema.optional(),
  revoked: z.boolean().optional(),
  contentHash: z.string().regex(CONTENT_HASH_PATTERN, CONTENT_HASH_RULE).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(100).default(50),
});
export type AccountListInput = z.infer<typeof accountListInput>;

const listedAttestation = z.object({
  uid: uidSchema,
  type: originSchema,
  mode: modeSchema,
  status: z.enum(['pending', 'confirmed', 'failed']),
  contentHash: hexHash,
  contentType: z.string(),
  txHash: hexHash.nullable(),
  createdAt: iso,
  revokedAt: iso.nullable(),
  verifyUrl: z.string(),
});

/** A page of the account's attestations, as every page of the API: `data`, and `nextCursor` while more follow. */
export const accountListPage = z.object({ data: z.array(listedAttestation), nextCursor: z.string().nullable() });
export type AccountListPage = z.infer<typeof accountListPage>;

/** The API's revoke body: the uid and an optional reason. */
export const memberRevokeInput = revokeInput;

export const memberRevokeOutput = z.object({
  uid: uidSchema,
  /** `pending`: the relayer had not finished when the wait ended; it will, and the list shows it then. */
  status: z.enum(['revoked', 'pending']),
  revokedAt: iso.nullable(),
});

import { z } from 'zod';
import { timestamp } from '../http/openapi-fields.ts';

const bytes32 = (description: string, example: string) =>
  z
    .string()
    .regex(/^0x[0-9a-f]{64}$/, 'must be 0x followed by 64 lower-case hex characters')
    .meta({ description, example });

/** An off-chain attestation's anchor as its record shows it, once the chain has timestamped the root. */
export const anchorRecord = z
  .object({
    root: bytes32(
      "The root of the Merkle tree holding the uid: @openzeppelin/merkle-tree's standard tree, leaves [uid], leaf encoding ['bytes32']",
      `0x${'7a'.repeat(32)}`,
    ),
    proof: z.array(bytes32('A sibling hash, from the leaf up', `0x${'3c'.repeat(32)}`)).meta({
      description:
        'The proof that [uid] is a leaf of the tree: StandardMerkleTree.verify(root, ["bytes32"], [uid], proof)',
    }),
    txHash: bytes32('The transaction that called EAS.timestamp(root)', `0x${'9d'.repeat(32)}`),
    blockNumber: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).meta({ example: 1234570 }),
    timestamp: timestamp(
      'The block time the chain recorded for the root (EAS.getTimestamp(root)), ISO 8601, UTC: the attestation existed by then',
    ),
  })
  .meta({
    id: 'Anchor',
    description:
      "Proof that an off-chain attestation existed by a block's time: its uid is a leaf of a Merkle tree whose root the EAS contract timestamped.",
  });
export type AnchorRecord = z.infer<typeof anchorRecord>;

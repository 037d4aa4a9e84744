import { CONTENT_HASH_PATTERN, CONTENT_HASH_RULE } from '@attestation-service/protocol';
import { z } from 'zod';
import { hexHash, offchainPackageSchema } from './offchain-contracts.ts';

// A conservative identifier: what model names and versions use (gpt-4o-2024-08-06, meta/llama-3.1:70b), no spaces or
// markup, so every surface can show it as it is.
const MODEL = /^[A-Za-z0-9._:/@+-]{1,64}$/;

/** The model behind an AI claim, as a create names it (docs/decisions.md, "The model behind an AI claim"). */
export const aiDetailsInput = z
  .strictObject({
    model: z.string().regex(MODEL, 'must be 1 to 64 characters: letters, digits and . _ : / @ + -').meta({
      description: 'The model that generated the content, as a short identifier.',
      example: 'gpt-4o-2024-08-06',
    }),
    promptHash: z
      .string()
      .regex(CONTENT_HASH_PATTERN, CONTENT_HASH_RULE)
      .optional()
      .meta({
        description: 'SHA-256 of the prompt, computed by you: the prompt itself never reaches the service.',
        example: `0x${'ab'.repeat(32)}`,
      }),
  })
  .meta({ id: 'AiDetailsInput' });
type AiDetailsInput = z.infer<typeof aiDetailsInput>;

export const aiDetailsRecord = z
  .object({
    model: z.string().meta({ example: 'gpt-4o-2024-08-06' }),
    promptHash: hexHash
      .nullable()
      .meta({ description: 'SHA-256 of the prompt (0x, lower case); null when not given.' }),
    offchain: offchainPackageSchema.nullable().meta({
      description:
        "An off-chain claim's AI-details attestation (schema `string model,bytes32 promptHash`), signed by the claim's attester with the claim's uid as its refUID; null on chain, where the Verifiable Credential carries them.",
    }),
  })
  .meta({ id: 'AiDetails' });

/**
 * AI details belong to AI claims. Off-chain they are an attestation the claim's attester signs, which a customer's
 * signed form does not carry: with an off-chain delegation they are refused (docs/decisions.md, "The model behind an
 * AI claim"); on chain the Verifiable Credential carries them whoever signed the claim.
 */
export function checkAiDetails(
  value: { type: 'human' | 'ai'; mode: 'onchain' | 'offchain'; ai?: AiDetailsInput | undefined; delegation?: unknown },
  issue: (message: string) => void,
): void {
  if (value.ai === undefined) return;
  if (value.type !== 'ai') issue('only an AI claim (type: "ai") names the model behind it');
  else if (value.delegation !== undefined && value.mode === 'offchain')
    issue('cannot be combined with an off-chain delegation: its AI-details attestation would need your signature too');
}

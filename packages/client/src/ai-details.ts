import type { OffchainPackage } from './types.ts';

/*
 * The AI details' own EAS schema (AI_DETAILS_SCHEMA, `string model,bytes32 promptHash`): an off-chain AI claim's
 * details are a second attestation under it, signed by the claim's attester with the claim's uid as its refUID, so
 * the claim's data and uid stay those of every other claim. A prompt hash not given is the zero word.
 */
export { AI_DETAILS_SCHEMA, AI_DETAILS_SCHEMA_UID, decodeAiDetails } from '@attestation-service/protocol';

/** The model behind an AI claim, as a create names it (`type: "ai"` only). */
export interface AiDetailsInput {
  /** A short identifier: 1 to 64 of letters, digits and `. _ : / @ + -` (e.g. `gpt-4o-2024-08-06`). */
  model: string;
  /** SHA-256 of the prompt, which you compute: the prompt never reaches the service. 64 hex, with or without 0x. */
  promptHash?: string;
}

/** The model behind an AI claim, as records show it. */
export interface AiDetails {
  model: string;
  /** 0x + 64 lower-case hex; null when not given. */
  promptHash: string | null;
  /**
   * Off-chain: the signed AI-details attestation naming the claim by refUID (`verifyOffchain` checks it with the
   * `ai` option). Null on chain, where the claim's Verifiable Credential carries the details.
   */
  offchain: OffchainPackage | null;
}

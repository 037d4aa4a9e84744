import { decodeAbiParameters, encodePacked, keccak256, zeroAddress, zeroHash, type Hex } from 'viem';
import type { OffchainPackage } from './types.ts';

/**
 * The AI details' own EAS schema: an off-chain AI claim's details are a second attestation under it, signed by the
 * claim's attester with the claim's uid as its refUID, so the claim's data and uid stay those of every other claim.
 * A prompt hash not given is the zero word.
 */
export const AI_DETAILS_SCHEMA = 'string model,bytes32 promptHash';
export const AI_DETAILS_SCHEMA_UID: Hex = keccak256(
  encodePacked(['string', 'address', 'bool'], [AI_DETAILS_SCHEMA, zeroAddress, true]),
);

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

/** What AI-details data says; null for data that is not of the AI-details schema. */
export function decodeAiDetails(data: string): { model: string; promptHash: string | null } | null {
  try {
    const [model, promptHash] = decodeAbiParameters([{ type: 'string' }, { type: 'bytes32' }], data as Hex);
    return { model, promptHash: promptHash === zeroHash ? null : promptHash.toLowerCase() };
  } catch {
    return null;
  }
}

import { encodeAbiParameters, encodePacked, keccak256, zeroAddress, zeroHash, type Hex } from 'viem';

/**
 * Our one EAS schema: a content hash and whether the content is AI-generated. Two static fields (64 bytes of
 * data) are the least that still lets anyone decode origin and hash from the chain; see docs/decisions.md.
 */
export const SCHEMA = 'bytes32 contentHash,bool aiGenerated';
export const SCHEMA_RESOLVER = zeroAddress;
export const SCHEMA_REVOCABLE = true;

/** The schema's UID as SchemaRegistry computes it: keccak256(abi.encodePacked(schema, resolver, revocable)). */
export const SCHEMA_UID: Hex = keccak256(
  encodePacked(['string', 'address', 'bool'], [SCHEMA, SCHEMA_RESOLVER, SCHEMA_REVOCABLE]),
);

export type Origin = 'human' | 'ai';

/** The attestation's `data` field for our schema. */
export function encodeAttestationData(contentHash: Hex, type: Origin): Hex {
  return encodeAbiParameters([{ type: 'bytes32' }, { type: 'bool' }], [contentHash, type === 'ai']);
}

/**
 * The AI details of an AI claim, as their own EAS schema: an off-chain attestation of it names its claim by refUID
 * (docs/decisions.md, "The model behind an AI claim"). A prompt hash not given is the zero word.
 */
export const AI_DETAILS_SCHEMA = 'string model,bytes32 promptHash';
export const AI_DETAILS_SCHEMA_UID: Hex = keccak256(
  encodePacked(['string', 'address', 'bool'], [AI_DETAILS_SCHEMA, SCHEMA_RESOLVER, SCHEMA_REVOCABLE]),
);

export function encodeAiDetailsData(model: string, promptHash: Hex | null): Hex {
  return encodeAbiParameters([{ type: 'string' }, { type: 'bytes32' }], [model, promptHash ?? zeroHash]);
}

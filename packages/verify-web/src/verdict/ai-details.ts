import type { Hex } from 'viem';
import { AI_DETAILS_SCHEMA_UID, decodeAiDetails, type Attestation } from '@attestation-service/client';
import { check, sameHex } from './compare.ts';
import type { Check } from './types.ts';

/** The pieces of the claim's own verification the AI details are checked against (offchain.ts). */
interface SignedPackageReader {
  signer(pkg: NonNullable<Attestation['offchain']>): Promise<Hex | undefined>;
  uidOf(pkg: NonNullable<Attestation['offchain']>): Hex | undefined;
}

/**
 * An off-chain claim's AI details: the record's model and prompt hash must be what a second off-chain attestation
 * says, under the AI-details schema, signed by the claim's attester in the claim's domain and naming the claim's uid
 * as its refUID (docs/decisions.md, "The model behind an AI claim"). None when the record names no model.
 */
export async function aiDetailsChecks(
  record: Attestation,
  attester: string,
  read: SignedPackageReader,
): Promise<Check[]> {
  const ai = record.ai;
  if (!ai) return [];
  const pkg = ai.offchain;
  if (!pkg || !record.offchain)
    return [check('AI details', false, 'the record names a model but holds no signed AI details')];
  const claimDomain = record.offchain.sig.domain;
  const { domain, message } = pkg.sig;
  const signed = decodeAiDetails(message.data);
  const recovered = await read.signer(pkg);
  const ok =
    sameHex(recovered, attester) &&
    sameHex(read.uidOf(pkg), pkg.sig.uid) &&
    sameHex(message.refUID, record.uid) &&
    sameHex(message.schema, AI_DETAILS_SCHEMA_UID) &&
    domain.chainId === claimDomain.chainId &&
    sameHex(domain.verifyingContract, claimDomain.verifyingContract) &&
    signed !== null &&
    signed.model === ai.model &&
    sameHex(signed.promptHash ?? 'none', ai.promptHash ?? 'none');
  return [
    check(
      'AI details',
      ok,
      signed
        ? `signed by ${recovered ?? 'no one'} for ${message.refUID}: model "${signed.model}", prompt hash ${signed.promptHash ?? 'none'}`
        : 'the signed AI details do not decode',
    ),
  ];
}

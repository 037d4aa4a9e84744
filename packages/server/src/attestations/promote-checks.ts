import { AppError, invalidField, notFound } from '../errors.ts';
import type { AuthenticatedKey } from '../keys/service.ts';
import type { DelegationInput } from './delegated-contracts.ts';
import { DEFAULT_TERM } from './digital-source-type.ts';
import type { PendingAttestation } from './pending-store.ts';
import type { PreparedAttestation } from './prepare.ts';
import type { PromotionOriginal } from './promote-store.ts';

/** Why this original cannot be promoted by this key (undefined: it can, or it was already). */
export function refusalOf(
  uid: string,
  original: PromotionOriginal | undefined,
  auth: AuthenticatedKey,
): AppError | undefined {
  if (!original) return notFound(`Attestation ${uid}`);
  // as revoke answers: records are public, so a 403 tells nothing a read would not
  if (original.accountId !== auth.accountId)
    return new AppError('FORBIDDEN', `Attestation ${uid} belongs to another account.`);
  return undefined;
}

/**
 * Why an original with no live promotion cannot get one, `path` naming where its delegation would go. One the
 * customer's attester signed goes on chain only by that attester's signed request: the relayer cannot sign in its
 * name, and signing as the service would change whose claim it is.
 */
export function conflictOf(
  uid: string,
  original: PromotionOriginal,
  delegation: DelegationInput | undefined,
  path: string,
): AppError | undefined {
  if (original.mode === 'onchain')
    return new AppError('ALREADY_ONCHAIN', `Attestation ${uid} is on chain already.`, { uid });
  if (original.revokedAt || original.revoking)
    return new AppError('ALREADY_REVOKED', `Attestation ${uid} is revoked: a revoked claim is not put on chain.`, {
      uid,
      revokedAt: original.revokedAt?.toISOString() ?? null,
    });
  if (original.delegated && !delegation)
    return invalidField(
      path,
      `is required: ${uid} was signed by your attester ${original.attester}, so its on-chain request must be signed by it too (POST /v1/attestations/${uid}/onchain with a delegation; the SDK's promoteSigned)`,
    );
  if (!original.delegated && delegation)
    return invalidField(
      path,
      `must be absent: ${uid} was signed by the service, and the relayer puts it on chain as such`,
    );
  if (delegation && delegation.attester.toLowerCase() !== original.attester.toLowerCase())
    return invalidField(`${path}.attester`, `must be ${original.attester}, the attester that signed ${uid}`);
  return undefined;
}

/** The original as a create its delegated request is checked against: the same fields, on chain, no refUID. */
export const signedItemOf = (original: PromotionOriginal, delegation: DelegationInput): PreparedAttestation => ({
  type: original.type,
  digitalSourceType: original.digitalSourceType ?? DEFAULT_TERM[original.type],
  mode: 'onchain',
  contentHash: original.contentHash as `0x${string}`,
  contentType: original.contentType,
  delegation,
});

/** A promotion's pending on-chain row: its original's claim, charged to `period`, naming the original. */
export function promotionRow(
  original: PromotionOriginal,
  auth: AuthenticatedKey,
  at: { chainId: number; schemaUid: string; attester: string; now: Date; period: string },
): PendingAttestation & { offchainUid: string } {
  return {
    accountId: auth.accountId,
    apiKeyId: auth.keyId,
    type: original.type,
    digitalSourceType: original.digitalSourceType,
    // its AI details go with it: on chain the Verifiable Credential carries them (docs/decisions.md)
    aiModel: original.aiModel,
    aiPromptHash: original.aiPromptHash,
    contentHash: original.contentHash,
    contentType: original.contentType,
    chainId: at.chainId,
    schemaUid: at.schemaUid,
    attester: at.attester,
    createdAt: at.now,
    quotaPeriod: at.period,
    // the request's own Idempotency-Key claim stores its answer: the relayer's would be a create's
    idempotencyKey: null,
    batchId: null,
    batchIndex: null,
    // its original's refUID may name an off-chain claim, on which EAS would revert the whole transaction
    refUid: null,
    offchainUid: original.uid,
  };
}

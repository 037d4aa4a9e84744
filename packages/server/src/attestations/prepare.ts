import {
  AI_DETAILS_SCHEMA_UID,
  encodeAiDetailsData,
  encodeAttestationData,
  normalizeContentHash,
  SCHEMA_UID,
} from '@attestation-service/protocol';
import type { AuthenticatedKey } from '../keys/service.ts';
import { hashContent, normalizeContentType } from './content.ts';
import type { CreateAttestationInput } from './contracts.ts';
import { DEFAULT_TERM, IPTC_DIGITAL_SOURCE_TYPE } from './digital-source-type.ts';
import type { DelegationInput } from './delegated-contracts.ts';
import { customerOffchainPackage } from './delegated.ts';
import type { OffchainSigner } from './offchain.ts';
import type { AttestationMode, AttestationOrigin } from './states.ts';
import type { NewAttestation } from './store.ts';

/** A creation request made ready to store: the content hashed, hash and media type in their one written form. */
export interface PreparedAttestation {
  type: AttestationOrigin;
  /** The IPTC digital source type's term (checked against `type` by the contract). */
  digitalSourceType: string;
  mode: AttestationMode;
  contentHash: `0x${string}`;
  contentType: string;
  batchIndex?: number;
  /** A customer attester's signature over it (checked where it is staged or signed). */
  delegation?: DelegationInput;
  /** The attestation it derives from (lower-case), checked to exist before it is signed or staged. */
  refUid?: `0x${string}`;
  /** The model behind an AI claim, its prompt hash in the written form (null: not given). */
  ai?: { model: string; promptHash: `0x${string}` | null };
}

/** The one preparation of a create and of each batch item: the content is hashed here and never kept. */
export function prepareAttestation(input: CreateAttestationInput, batchIndex?: number): PreparedAttestation {
  return {
    type: input.type,
    digitalSourceType: input.digitalSourceType?.slice(IPTC_DIGITAL_SOURCE_TYPE.length) ?? DEFAULT_TERM[input.type],
    mode: input.mode,
    contentHash: input.content !== undefined ? hashContent(input.content) : normalizeContentHash(input.contentHash!),
    contentType: normalizeContentType(input.contentType),
    ...(batchIndex === undefined ? {} : { batchIndex }),
    ...(input.delegation === undefined ? {} : { delegation: input.delegation }),
    ...(input.refUid === undefined ? {} : { refUid: input.refUid.toLowerCase() as `0x${string}` }),
    ...(input.ai === undefined
      ? {}
      : {
          ai: {
            model: input.ai.model,
            promptHash: input.ai.promptHash === undefined ? null : normalizeContentHash(input.ai.promptHash),
          },
        }),
  };
}

/** Signs an off-chain attestation at `now` (ms), or checks its customer's signature: its row, ready to insert. */
export async function signOffchain(
  item: PreparedAttestation,
  ctx: { auth: AuthenticatedKey; signer: OffchainSigner; chainId: number; now: number; batchId?: string },
): Promise<NewAttestation> {
  const seconds = Math.floor(ctx.now / 1000);
  const path = item.batchIndex === undefined ? 'delegation' : `attestations.${item.batchIndex}.delegation`;
  // a customer attester's package is checked, not signed: it is theirs (docs/decisions.md, "Customer attesters")
  const pkg = item.delegation
    ? customerOffchainPackage(ctx.signer.domain, item, item.delegation, seconds, path)
    : await ctx.signer.sign(encodeAttestationData(item.contentHash, item.type), seconds, item.refUid);
  // the AI details are their own attestation naming the claim by refUID: the claim's data and uid stay as they are
  const aiPackage =
    item.ai &&
    (await ctx.signer.sign(
      encodeAiDetailsData(item.ai.model, item.ai.promptHash),
      seconds,
      pkg.sig.uid,
      AI_DETAILS_SCHEMA_UID,
    ));
  return {
    uid: pkg.sig.uid,
    accountId: ctx.auth.accountId,
    apiKeyId: ctx.auth.keyId,
    type: item.type,
    digitalSourceType: item.digitalSourceType,
    mode: 'offchain',
    status: 'confirmed',
    contentHash: item.contentHash,
    contentType: item.contentType,
    chainId: ctx.chainId,
    schemaUid: SCHEMA_UID,
    attester: pkg.signer,
    offchain: pkg,
    refUid: item.refUid ?? null,
    aiModel: item.ai?.model ?? null,
    aiPromptHash: item.ai?.promptHash ?? null,
    aiOffchain: aiPackage ?? null,
    createdAt: new Date(ctx.now),
    ...(ctx.batchId === undefined ? {} : { batchId: ctx.batchId, batchIndex: item.batchIndex ?? null }),
  };
}

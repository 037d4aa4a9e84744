import type { AnchorColumns } from '../anchoring/record.ts';
import type { AttestationMode, AttestationOrigin, AttestationStatus } from './states.ts';
import type { AttestationRow } from './store.ts';

/** A record's row as PostgreSQL names its columns (the precompiled reads skip the name mapping). */
export interface RawRecord {
  id: string;
  uid: string | null;
  account_id: string;
  api_key_id: string;
  type: AttestationOrigin;
  digital_source_type: string | null;
  mode: AttestationMode;
  status: AttestationStatus;
  content_hash: string;
  content_type: string;
  chain_id: number;
  schema_uid: string;
  attester: string;
  tx_hash: string | null;
  block_number: string | null;
  offchain: string | null;
  ai_model: string | null;
  ai_prompt_hash: string | null;
  ai_offchain: string | null;
  created_at: Date;
  revoked_at: Date | null;
  revocation_tx_hash: string | null;
  anchor_proof: Buffer | null;
  ref_uid: string | null;
  offchain_uid: string | null;
  onchain_uid: string | null;
  anchor: AnchorColumns['anchor'];
  delegated: boolean;
  claimant_name: string | null;
  claimant_domain: string | null;
}

export function fromRaw(raw: RawRecord): AttestationRow {
  return {
    id: BigInt(raw.id),
    uid: raw.uid,
    accountId: raw.account_id,
    apiKeyId: raw.api_key_id,
    type: raw.type,
    digitalSourceType: raw.digital_source_type,
    mode: raw.mode,
    status: raw.status,
    contentHash: raw.content_hash,
    contentType: raw.content_type,
    chainId: raw.chain_id,
    schemaUid: raw.schema_uid,
    attester: raw.attester,
    txHash: raw.tx_hash,
    blockNumber: raw.block_number === null ? null : BigInt(raw.block_number),
    offchain: raw.offchain,
    aiModel: raw.ai_model,
    aiPromptHash: raw.ai_prompt_hash,
    aiOffchain: raw.ai_offchain,
    createdAt: raw.created_at,
    revokedAt: raw.revoked_at,
    revocationTxHash: raw.revocation_tx_hash,
    anchorProof: raw.anchor_proof,
    refUid: raw.ref_uid,
    offchainUid: raw.offchain_uid,
    onchainUid: raw.onchain_uid,
    anchor: raw.anchor,
    delegated: raw.delegated,
    claimantName: raw.claimant_name,
    claimantDomain: raw.claimant_domain,
  };
}

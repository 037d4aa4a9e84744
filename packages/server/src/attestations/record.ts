import { toAnchor } from '../anchoring/record.ts';
import type { AttestationRecord } from './contracts.ts';
import type { AttestationRow } from './store.ts';
import type { OffchainPackage } from './offchain.ts';

/** The public view of a stored attestation: no account or key data. */
export function toRecord(row: AttestationRow, verifyBaseUrl: string): AttestationRecord {
  const uid = row.uid as `0x${string}`;
  return {
    uid,
    type: row.type,
    mode: row.mode,
    contentHash: row.contentHash,
    contentType: row.contentType,
    chainId: row.chainId,
    schemaUid: row.schemaUid,
    attester: row.attester,
    claimant: row.delegated
      ? { kind: 'account', address: row.attester, accountName: row.claimantName }
      : { kind: 'service', address: row.attester, accountName: null },
    txHash: row.txHash,
    blockNumber: row.blockNumber === null ? null : Number(row.blockNumber),
    createdAt: row.createdAt.toISOString(),
    revoked: row.revokedAt !== null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    revocationTxHash: row.revocationTxHash,
    verifyUrl: `${verifyBaseUrl}/${uid}`,
    offchain: (row.offchain as unknown as OffchainPackage | null) ?? null,
    anchor: toAnchor(row),
  };
}

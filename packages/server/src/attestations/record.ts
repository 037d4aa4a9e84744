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

/** Opaque page cursors: the last row's id, base64url-encoded. */
export function encodeCursor(id: bigint): string {
  return Buffer.from(`id:${id}`).toString('base64url');
}

/** Row ids are PostgreSQL bigints: 1 up to 2^63 - 1. */
const MAX_ID = 9_223_372_036_854_775_807n;

/** The id a cursor stands for; undefined for anything we did not issue (checked before any query sees it). */
export function decodeCursor(cursor: string): bigint | undefined {
  const match = /^id:([1-9]\d{0,18})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return undefined;
  const id = BigInt(match[1]!);
  // base64url decoding skips characters outside its alphabet, so only the exact text we encode is ours
  return id <= MAX_ID && encodeCursor(id) === cursor ? id : undefined;
}

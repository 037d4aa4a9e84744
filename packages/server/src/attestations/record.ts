import { toAnchor } from '../anchoring/record.ts';
import type { AttestationRecord } from './contracts.ts';
import type { AttestationRow } from './store.ts';
import type { OffchainPackage } from './offchain.ts';
import type { AttestationOrigin } from './states.ts';
import { JsonText } from '../http/json-text.ts';
import { digitalSourceTypeUri, termOf } from './digital-source-type.ts';

/** A row's IPTC digital source type URI (its type's default for rows from before the field). */
export const sourceTypeOf = (row: { digitalSourceType: string | null; type: AttestationOrigin }): string =>
  digitalSourceTypeUri(termOf(row.digitalSourceType, row.type));

/** The public view of a stored attestation: no account or key data. */
export function toRecord(row: AttestationRow, verifyBaseUrl: string): AttestationRecord {
  return { ...recordWithoutPackage(row, verifyBaseUrl), offchain: offchainOf(row) };
}

const offchainOf = (row: AttestationRow) =>
  row.offchain === null ? null : (JSON.parse(row.offchain) as OffchainPackage);

/** A row's AI details as records, batch items and webhooks show them (null: none named). */
export function aiDetailsOf(row: {
  aiModel: string | null;
  aiPromptHash: string | null;
  aiOffchain: unknown;
}): AttestationRecord['ai'] {
  if (row.aiModel === null) return null;
  const pkg = typeof row.aiOffchain === 'string' ? JSON.parse(row.aiOffchain) : row.aiOffchain;
  return {
    model: row.aiModel,
    promptHash: row.aiPromptHash as `0x${string}` | null,
    offchain: (pkg ?? null) as OffchainPackage | null,
  };
}

/**
 * A record's JSON: every field but the signed package serialised, then the package's stored JSON text spliced in
 * last, unparsed (it is most of a record's bytes; PostgreSQL's text of a jsonb value is valid JSON).
 */
export function recordText(row: AttestationRow, verifyBaseUrl: string): string {
  const head = JSON.stringify(recordWithoutPackage(row, verifyBaseUrl));
  return `${head.slice(0, -1)},"offchain":${row.offchain ?? 'null'}}`;
}

/** A page of records as a search writes it. */
export const recordPageText = (rows: AttestationRow[], nextCursor: string | null, verifyBaseUrl: string): string =>
  `{"data":[${rows.map((row) => recordText(row, verifyBaseUrl)).join(',')}],"nextCursor":${JSON.stringify(nextCursor)}}`;

/** A page of records as a search answers it, likewise. */
export function recordPageAnswer(
  rows: AttestationRow[],
  nextCursor: string | null,
  verifyBaseUrl: string,
): JsonText<RecordPage> {
  return new JsonText(
    () => recordPageText(rows, nextCursor, verifyBaseUrl),
    () => ({ data: rows.map((row) => toRecord(row, verifyBaseUrl)), nextCursor }),
  );
}

export type RecordPage = { data: AttestationRecord[]; nextCursor: string | null };

function recordWithoutPackage(row: AttestationRow, verifyBaseUrl: string): Omit<AttestationRecord, 'offchain'> {
  const uid = row.uid as `0x${string}`;
  return {
    uid,
    type: row.type,
    digitalSourceType: sourceTypeOf(row),
    mode: row.mode,
    contentHash: row.contentHash,
    contentType: row.contentType,
    chainId: row.chainId,
    schemaUid: row.schemaUid,
    attester: row.attester,
    claimant: row.delegated
      ? { kind: 'account', address: row.attester, accountName: row.claimantName, domain: row.claimantDomain }
      : { kind: 'service', address: row.attester, accountName: null, domain: null },
    refUid: row.refUid as `0x${string}` | null,
    offchainUid: row.offchainUid as `0x${string}` | null,
    onchainUid: row.onchainUid as `0x${string}` | null,
    txHash: row.txHash,
    blockNumber: row.blockNumber === null ? null : Number(row.blockNumber),
    createdAt: row.createdAt.toISOString(),
    revoked: row.revokedAt !== null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    revocationTxHash: row.revocationTxHash,
    verifyUrl: `${verifyBaseUrl}/${uid}`,
    ai: aiDetailsOf(row),
    anchor: toAnchor(row),
  };
}

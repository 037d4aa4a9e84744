import type { Sql } from '../db/sql.ts';

/** An attestation as stored (content is never stored, only its hash). */
export interface AttestationRow {
  id: bigint;
  uid: string | null;
  accountId: string;
  apiKeyId: string;
  type: string;
  mode: string;
  status: string;
  contentHash: string;
  contentType: string;
  chainId: number;
  schemaUid: string;
  attester: string;
  txHash: string | null;
  blockNumber: bigint | null;
  offchain: unknown;
  createdAt: Date;
  revokedAt: Date | null;
  revocationTxHash: string | null;
}

export type NewAttestation = Omit<AttestationRow, 'id' | 'txHash' | 'blockNumber' | 'revokedAt' | 'revocationTxHash'>;

const COLUMNS = `id, uid, account_id AS "accountId", api_key_id AS "apiKeyId", type, mode, status, content_hash AS "contentHash",
  content_type AS "contentType", chain_id AS "chainId", schema_uid AS "schemaUid", attester, tx_hash AS "txHash",
  block_number AS "blockNumber", offchain, created_at AS "createdAt", revoked_at AS "revokedAt", revocation_tx_hash AS "revocationTxHash"`;

type RawRow = Omit<AttestationRow, 'id' | 'blockNumber'> & { id: string; blockNumber: string | null };

function toRow(raw: RawRow): AttestationRow {
  return { ...raw, id: BigInt(raw.id), blockNumber: raw.blockNumber === null ? null : BigInt(raw.blockNumber) };
}

export async function insertAttestation(sql: Sql, row: NewAttestation): Promise<void> {
  await sql.query(
    `INSERT INTO attestations (uid, account_id, api_key_id, type, mode, status, content_hash, content_type, chain_id, schema_uid, attester, offchain, created_at)
     VALUES ($1, $2::uuid, $3::uuid, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13)`,
    [row.uid, row.accountId, row.apiKeyId, row.type, row.mode, row.status, row.contentHash, row.contentType, row.chainId, row.schemaUid, row.attester, row.offchain === undefined ? null : JSON.stringify(row.offchain), row.createdAt],
  );
}

/** A readable attestation (one with a uid; pending on-chain ones have none yet). */
export async function findByUid(sql: Sql, uid: string): Promise<AttestationRow | undefined> {
  const [raw] = await sql.query<RawRow>(`SELECT ${COLUMNS} FROM attestations WHERE uid = $1`, [uid]);
  return raw && toRow(raw);
}

/** One page of the attestations of a content hash, newest first; `beforeId` continues a previous page. */
export async function searchByHash(sql: Sql, contentHash: string, limit: number, beforeId?: bigint): Promise<AttestationRow[]> {
  const rows = await sql.query<RawRow>(
    `SELECT ${COLUMNS} FROM attestations
     WHERE content_hash = $1 AND uid IS NOT NULL AND ($3::bigint IS NULL OR id < $3::bigint)
     ORDER BY id DESC LIMIT $2`,
    [contentHash, limit, beforeId === undefined ? null : beforeId.toString()],
  );
  return rows.map(toRow);
}

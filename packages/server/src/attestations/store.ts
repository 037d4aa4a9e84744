import { ANCHOR_COLUMNS, type AnchorColumns } from '../anchoring/record.ts';
import type { PgRow, Prisma } from '../db/rows.ts';
import type { Sql } from '../db/sql.ts';
import type { AttestationMode, AttestationOrigin, AttestationStatus } from './states.ts';

type Model = Prisma.AttestationModel;

/** Its text columns narrowed to their closed sets; the off-chain package is whatever the signer made. */
type Narrowed = { type: AttestationOrigin; mode: AttestationMode; status: AttestationStatus; offchain: unknown };

/** Whether a customer attester signed it (docs/decisions.md, "Customer attesters"), and then its account's name. */
export type ClaimantColumns = { delegated: boolean; claimantName: string | null };

/**
 * An attestation as stored (content is never stored, only its hash): Prisma's model, the columns the API reads, and
 * its anchor (an off-chain attestation's, once mined).
 */
export type AttestationRow = Pick<
  Model,
  | 'id'
  | 'uid'
  | 'accountId'
  | 'apiKeyId'
  | 'contentHash'
  | 'contentType'
  | 'chainId'
  | 'schemaUid'
  | 'attester'
  | 'txHash'
  | 'blockNumber'
  | 'createdAt'
  | 'revokedAt'
  | 'revocationTxHash'
> &
  Narrowed &
  AnchorColumns &
  ClaimantColumns;

export type NewAttestation = Omit<
  AttestationRow,
  'id' | 'txHash' | 'blockNumber' | 'revokedAt' | 'revocationTxHash' | keyof AnchorColumns | keyof ClaimantColumns
> &
  Partial<Pick<Model, 'batchId' | 'batchIndex'>>;

const COLUMNS = `id, uid, account_id AS "accountId", api_key_id AS "apiKeyId", type, mode, status, content_hash AS "contentHash",
  content_type AS "contentType", chain_id AS "chainId", schema_uid AS "schemaUid", attester, tx_hash AS "txHash",
  block_number AS "blockNumber", offchain, created_at AS "createdAt", revoked_at AS "revokedAt", revocation_tx_hash AS "revocationTxHash",
  ${ANCHOR_COLUMNS}, delegation IS NOT NULL AS delegated,
  CASE WHEN delegation IS NOT NULL THEN (SELECT name FROM accounts WHERE accounts.id = attestations.account_id) END
    AS "claimantName"`;

type RawRow = PgRow<AttestationRow>;

function toRow(raw: RawRow): AttestationRow {
  return { ...raw, id: BigInt(raw.id), blockNumber: raw.blockNumber === null ? null : BigInt(raw.blockNumber) };
}

/** Inserts many attestations in one statement, in order. */
export async function insertAttestations(sql: Sql, rows: NewAttestation[]): Promise<void> {
  const col = <K extends keyof NewAttestation>(key: K) => rows.map((row) => row[key]);
  await sql.query(
    `INSERT INTO attestations (uid, account_id, api_key_id, type, mode, status, content_hash, content_type, chain_id, schema_uid, attester, offchain, created_at, batch_id, batch_index)
     SELECT * FROM unnest($1::text[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[], $10::text[], $11::text[], $12::jsonb[], $13::timestamptz[], $14::uuid[], $15::int[])`,
    [
      col('uid'),
      col('accountId'),
      col('apiKeyId'),
      col('type'),
      col('mode'),
      col('status'),
      col('contentHash'),
      col('contentType'),
      col('chainId'),
      col('schemaUid'),
      col('attester'),
      rows.map((r) => (r.offchain === undefined ? null : JSON.stringify(r.offchain))),
      col('createdAt'),
      rows.map((r) => r.batchId ?? null),
      rows.map((r) => r.batchIndex ?? null),
    ],
  );
}

/** The readable attestations among these uids (pending on-chain ones have no uid yet), by uid. */
export async function findByUids(sql: Sql, uids: string[]): Promise<Map<string, AttestationRow>> {
  const rows = await sql.query<RawRow>(`SELECT ${COLUMNS} FROM attestations WHERE uid = ANY($1::text[])`, [uids]);
  return new Map(rows.map((raw) => [raw.uid!, toRow(raw)]));
}

export interface HashQuery {
  contentHash: string;
  limit: number;
  beforeId?: bigint | undefined;
}

/** Pages of several content-hash searches in one statement: each newest first, `beforeId` continuing a page. */
export async function searchByHashes(sql: Sql, queries: HashQuery[]): Promise<AttestationRow[][]> {
  const rows = await sql.query<RawRow & { q: string }>(
    `SELECT q.i AS q, a.* FROM unnest($1::bpchar[], $2::int[], $3::bigint[]) WITH ORDINALITY AS q(hash, lim, before, i)
     CROSS JOIN LATERAL (
       SELECT ${COLUMNS} FROM attestations
       WHERE content_hash = q.hash AND id < COALESCE(q.before, 9223372036854775807) AND uid IS NOT NULL
       ORDER BY id DESC LIMIT q.lim
     ) a
     ORDER BY q.i, a.id DESC`,
    [
      queries.map((q) => q.contentHash),
      queries.map((q) => q.limit),
      queries.map((q) => (q.beforeId === undefined ? null : q.beforeId.toString())),
    ],
  );
  const pages: AttestationRow[][] = queries.map(() => []);
  for (const { q, ...raw } of rows) pages[Number(q) - 1]!.push(toRow(raw));
  return pages;
}

/** An on-chain attestation waiting for the relayer: no uid yet, its quota period charged. */
export type PendingAttestation = Pick<
  Model,
  | 'accountId'
  | 'apiKeyId'
  | 'contentHash'
  | 'contentType'
  | 'chainId'
  | 'schemaUid'
  | 'attester'
  | 'createdAt'
  | 'idempotencyKey'
  | 'batchId'
  | 'batchIndex'
> & { type: AttestationOrigin; quotaPeriod: string };

/** Stores on-chain attestations waiting for the relayer (no uid until their Attested log); returns their ids in order. */
export async function insertPending(sql: Sql, rows: PendingAttestation[]): Promise<string[]> {
  const col = <K extends keyof PendingAttestation>(key: K) => rows.map((row) => row[key]);
  const inserted = await sql.query<{ id: string }>(
    `INSERT INTO attestations (account_id, api_key_id, type, mode, status, content_hash, content_type, chain_id, schema_uid, attester, created_at, quota_period, idempotency_key, batch_id, batch_index)
     SELECT a, k, t, 'onchain', 'pending', h, ct, c, s, at, cr, q, i, b, bi
     FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[], $9::timestamptz[], $10::text[], $11::text[], $12::uuid[], $13::int[])
       WITH ORDINALITY AS v(a, k, t, h, ct, c, s, at, cr, q, i, b, bi, n)
     ORDER BY n
     RETURNING id::text`,
    [
      col('accountId'),
      col('apiKeyId'),
      col('type'),
      col('contentHash'),
      col('contentType'),
      col('chainId'),
      col('schemaUid'),
      col('attester'),
      col('createdAt'),
      col('quotaPeriod'),
      col('idempotencyKey'),
      col('batchId'),
      col('batchIndex'),
    ],
  );
  return inserted.map((row) => row.id).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
}

export type RelayOutcome = PgRow<Pick<Model, 'id' | 'uid' | 'txHash' | 'failureReason'>> & {
  status: AttestationStatus;
};

/** Where these on-chain attestations stand. */
export async function outcomesOf(sql: Sql, ids: string[]): Promise<Map<string, RelayOutcome>> {
  const rows = await sql.query<RelayOutcome>(
    `SELECT id::text, status, uid, tx_hash AS "txHash", failure_reason AS "failureReason" FROM attestations WHERE id = ANY($1::bigint[])`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** A batch item as its batch response shows it. */
export type BatchItemRow = Pick<AttestationRow, 'uid' | 'txHash' | 'mode' | 'offchain'> & {
  batchId: NonNullable<Model['batchId']>;
};

/** The items of batches, in request order, as their batch response shows them. */
export async function batchItems(sql: Sql, batchIds: string[]): Promise<BatchItemRow[]> {
  return sql.query(
    `SELECT batch_id AS "batchId", uid, tx_hash AS "txHash", mode, offchain FROM attestations WHERE batch_id = ANY($1::uuid[]) ORDER BY batch_id, batch_index`,
    [batchIds],
  );
}

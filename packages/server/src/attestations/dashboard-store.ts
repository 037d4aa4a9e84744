import type { PgRow } from '../db/rows.ts';
import type { Sql } from '../db/sql.ts';
import type { AttestationMode, AttestationOrigin } from './states.ts';
import type { AttestationRow } from './store.ts';

/** What the dashboard's list shows of an attestation (no off-chain package: a page stays small). */
export type ListedAttestation = Pick<
  AttestationRow,
  'id' | 'type' | 'mode' | 'status' | 'contentHash' | 'contentType' | 'txHash' | 'createdAt' | 'revokedAt'
> & { uid: string };

export interface AccountPageQuery {
  accountId: string;
  type?: AttestationOrigin | undefined;
  mode?: AttestationMode | undefined;
  revoked?: boolean | undefined;
  /** Normalized: 0x and lower case. */
  contentHash?: string | undefined;
  /** Rows older than this one (a page's cursor). */
  beforeId?: bigint | undefined;
  limit: number;
}

const ORIGINS: AttestationOrigin[] = ['human', 'ai'];
const MODES: AttestationMode[] = ['onchain', 'offchain'];
const MAX_ID = '9223372036854775807';

const COLUMNS = `id, uid, type, mode, status, content_hash AS "contentHash", content_type AS "contentType",
  tx_hash AS "txHash", created_at AS "createdAt", revoked_at AS "revokedAt"`;

/**
 * One page of an account's attestations, newest first (pending on-chain ones have no uid yet and are left out).
 * Each filter combination walks an index in id order and stops after `limit` rows, whatever the account's mix:
 * - by content hash: (content_hash, id DESC), the other filters checked on its few rows;
 * - by type and/or mode, or revoked only: one walk of (account_id, type, mode, id DESC) per (type, mode) pair
 *   (the partial index of revoked rows when revoked), the pairs' pages merged;
 * - otherwise: (account_id, id DESC).
 * The SQL is put together from fixed fragments only; every value is a parameter.
 */
export async function accountPage(sql: Sql, q: AccountPageQuery): Promise<ListedAttestation[]> {
  const params: unknown[] = [q.accountId, q.beforeId === undefined ? MAX_ID : q.beforeId.toString(), q.limit];
  const where = ['account_id = $1::uuid', 'id < $2::bigint', 'uid IS NOT NULL'];
  if (q.revoked !== undefined) where.push(q.revoked ? 'revoked_at IS NOT NULL' : 'revoked_at IS NULL');
  const pairs = q.contentHash === undefined && (q.type !== undefined || q.mode !== undefined || q.revoked === true);
  let rows: Array<PgRow<ListedAttestation>>;
  if (pairs) {
    const types = q.type === undefined ? ORIGINS : [q.type];
    const modes = q.mode === undefined ? MODES : [q.mode];
    const combos = types.flatMap((type) => modes.map((mode) => ({ type, mode })));
    params.push(
      combos.map((c) => c.type),
      combos.map((c) => c.mode),
    );
    rows = await sql.query(
      `SELECT a.* FROM unnest($4::text[], $5::text[]) AS f(type, mode)
       CROSS JOIN LATERAL (
         SELECT ${COLUMNS} FROM attestations
         WHERE ${where.join(' AND ')} AND type = f.type AND mode = f.mode
         ORDER BY id DESC LIMIT $3
       ) a
       ORDER BY a.id DESC LIMIT $3`,
      params,
    );
  } else {
    if (q.contentHash !== undefined) where.push(`content_hash = $${params.push(q.contentHash)}`);
    if (q.type !== undefined) where.push(`type = $${params.push(q.type)}`);
    if (q.mode !== undefined) where.push(`mode = $${params.push(q.mode)}`);
    rows = await sql.query(
      `SELECT ${COLUMNS} FROM attestations WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $3`,
      params,
    );
  }
  return rows.map((row) => ({ ...row, id: BigInt(row.id) }));
}

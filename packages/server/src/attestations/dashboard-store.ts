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
 * Every filter combination is a walk of an index that stops after `limit` rows, however the account's attestations
 * are mixed or spread in time:
 * - by content hash: (content_hash, id DESC), the other filters checked on its few rows;
 * - otherwise one walk per (type, mode) pair the filters leave (at most four), merged: (account_id, type, mode,
 *   id DESC), or its partial twin over revoked rows when only those are asked for.
 * The SQL is put together from fixed fragments only; every value is a parameter.
 */
export async function accountPage(sql: Sql, q: AccountPageQuery): Promise<ListedAttestation[]> {
  const params: unknown[] = [q.accountId, q.beforeId === undefined ? MAX_ID : q.beforeId.toString(), q.limit];
  const param = (value: unknown) => `$${params.push(value)}`;
  const where = ['account_id = $1::uuid', 'id < $2::bigint', 'uid IS NOT NULL'];
  if (q.revoked !== undefined) where.push(q.revoked ? 'revoked_at IS NOT NULL' : 'revoked_at IS NULL');
  let text: string;
  if (q.contentHash !== undefined) {
    where.push(`content_hash = ${param(q.contentHash)}`);
    if (q.type !== undefined) where.push(`type = ${param(q.type)}`);
    if (q.mode !== undefined) where.push(`mode = ${param(q.mode)}`);
    text = `SELECT ${COLUMNS} FROM attestations WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $3`;
  } else {
    const types = q.type === undefined ? ORIGINS : [q.type];
    const modes = q.mode === undefined ? MODES : [q.mode];
    // mode as a range, not an equality: as a constant it would let the planner walk the id order (the primary key)
    // and skip other rows by filter, which is slow when the pair's rows are old; ordered by the index's own
    // columns, the pair's index is the only sorted walk there is
    const branches = types.flatMap((type) =>
      modes.map((mode) => {
        const [t, m] = [param(type), param(mode)];
        const pair = `type = ${t} AND mode >= ${m} AND mode <= ${m}`;
        return `(SELECT ${COLUMNS} FROM attestations WHERE ${where.join(' AND ')} AND ${pair} ORDER BY mode, id DESC LIMIT $3)`;
      }),
    );
    text = `SELECT * FROM (${branches.join(' UNION ALL ')}) page ORDER BY id DESC LIMIT $3`;
  }
  const rows = await sql.query<PgRow<ListedAttestation>>(text, params);
  return rows.map((row) => ({ ...row, id: BigInt(row.id) }));
}

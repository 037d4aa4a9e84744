import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Attestation } from '../generated/kysely/database.ts';
import type { AttestationMode, AttestationOrigin, AttestationStatus } from './states.ts';
import type { AttestationRow } from './store.ts';

/** What the dashboard's list shows of an attestation (no off-chain package: a page stays small). */
type ListedAttestation = Pick<
  AttestationRow,
  'id' | 'type' | 'mode' | 'status' | 'contentHash' | 'contentType' | 'txHash' | 'createdAt' | 'revokedAt'
> & { uid: string };

type Listed = Pick<Attestation, (typeof COLUMNS)[number]>;

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

const COLUMNS = [
  'id',
  'uid',
  'type',
  'mode',
  'status',
  'contentHash',
  'contentType',
  'txHash',
  'createdAt',
  'revokedAt',
] as const;

/**
 * One page of an account's attestations, newest first (pending on-chain ones have no uid yet and are left out).
 * Every filter combination is a walk of an index that stops after `limit` rows, however the account's attestations
 * are mixed or spread in time:
 * - by content hash: (content_hash, id DESC), the other filters checked on its few rows;
 * - otherwise one walk per (type, mode) pair the filters leave (at most four), merged: (account_id, type, mode,
 *   id DESC), or its partial twin over revoked rows when only those are asked for.
 */
export async function accountPage(db: Db, q: AccountPageQuery): Promise<ListedAttestation[]> {
  const beforeId = q.beforeId === undefined ? MAX_ID : q.beforeId.toString();
  const base = db
    .selectFrom('attestations')
    .select(COLUMNS)
    .where('accountId', '=', q.accountId)
    .where('id', '<', beforeId)
    .where('uid', 'is not', null)
    .$if(q.revoked !== undefined, (qb) => qb.where('revokedAt', q.revoked ? 'is not' : 'is', null));
  let rows: Array<Selectable<Listed>>;
  if (q.contentHash !== undefined) {
    rows = await base
      .where('contentHash', '=', q.contentHash)
      .$if(q.type !== undefined, (qb) => qb.where('type', '=', q.type!))
      .$if(q.mode !== undefined, (qb) => qb.where('mode', '=', q.mode!))
      .orderBy('id', 'desc')
      .limit(q.limit)
      .execute();
  } else {
    const types = q.type === undefined ? ORIGINS : [q.type];
    const modes = q.mode === undefined ? MODES : [q.mode];
    // mode as a range, not an equality: as a constant it would let the planner walk the id order (the primary key)
    // and skip other rows by filter, which is slow when the pair's rows are old; ordered by the index's own
    // columns, the pair's index is the only sorted walk there is
    const branches = types.flatMap((type) =>
      modes.map((mode) =>
        db
          .selectFrom(
            base
              .where('type', '=', type)
              .where('mode', '>=', mode)
              .where('mode', '<=', mode)
              .orderBy('mode')
              .orderBy('id', 'desc')
              .limit(q.limit)
              .as('pair'),
          )
          .selectAll(),
      ),
    );
    const [first, ...others] = branches;
    const merged = others.reduce((union, branch) => union.unionAll(branch), first!);
    rows = await db.selectFrom(merged.as('page')).selectAll().orderBy('id', 'desc').limit(q.limit).execute();
  }
  return rows.map((row) => ({
    ...row,
    type: row.type as AttestationOrigin,
    mode: row.mode as AttestationMode,
    status: row.status as AttestationStatus,
    id: BigInt(row.id),
    uid: row.uid!,
  }));
}

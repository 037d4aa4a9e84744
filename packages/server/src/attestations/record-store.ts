import { sql as raw, type ExpressionBuilder } from 'kysely';
import type { Db, DB } from '../db/database.ts';
import { precompiled } from '../db/precompiled.ts';
import type { AttestationMode, AttestationOrigin } from './states.ts';
import { fromRaw, type RawRecord } from './record-raw.ts';
import {
  linkedColumns,
  versionColumns,
  versionOf,
  xmin,
  type VersionedRecord,
  type VersionParts,
} from './version-store.ts';
import type { AttestationRow } from './store.ts';

/**
 * What a record's query selects: the columns, the anchor as one JSON value once its transaction is mined (block
 * number as a number, timestamp as PostgreSQL's text), and the claimant's account name and first verified domain
 * for a customer's attestation.
 */
export const recordColumns = (eb: ExpressionBuilder<DB, 'attestations'>) =>
  [
    'attestations.id',
    'attestations.uid',
    'attestations.accountId',
    'attestations.apiKeyId',
    'attestations.type',
    'attestations.digitalSourceType',
    'attestations.mode',
    'attestations.status',
    'attestations.contentHash',
    'attestations.contentType',
    'attestations.chainId',
    'attestations.schemaUid',
    'attestations.attester',
    'attestations.txHash',
    'attestations.blockNumber',
    // as stored: a record's JSON splices it in as it is (attestations/record.ts)
    raw<string | null>`${raw.ref('attestations.offchain')}::text`.as('offchain'),
    'attestations.aiModel',
    'attestations.aiPromptHash',
    raw<string | null>`${raw.ref('attestations.aiOffchain')}::text`.as('aiOffchain'),
    'attestations.createdAt',
    'attestations.revokedAt',
    'attestations.revocationTxHash',
    'attestations.anchorProof',
    'attestations.refUid',
    'attestations.offchainUid',
    eb('attestations.delegation', 'is not', null).as('delegated'),
    ...linkedColumns(eb),
  ] as const;

const recordsByUids = precompiled(
  (db: Db, uids: string[]) =>
    db
      .selectFrom('attestations')
      .select(recordColumns)
      .select(xmin)
      .where((eb) => eb('attestations.uid', '=', eb.fn.any(eb.val(uids)))),
  [[]],
  // the version is worked out only where it is wanted (findVersionedByUids): webhook events read rows alone
  (raw: RawRecord & { xmin: string }) => ({ row: fromRaw(raw), parts: raw }),
);

const versionsByUids = precompiled(
  (db: Db, uids: string[]) =>
    db
      .selectFrom('attestations')
      .select((eb) => ['attestations.uid', ...versionColumns(eb)])
      .where((eb) => eb('attestations.uid', '=', eb.fn.any(eb.val(uids)))),
  [[]],
  (raw: VersionParts & { uid: string }) => [raw.uid, versionOf([raw])] as const,
);

/** The readable attestations among these uids (pending on-chain ones have no uid yet), by uid, with their versions. */
export async function findVersionedByUids(db: Db, uids: string[]): Promise<Map<string, VersionedRecord>> {
  const found = await recordsByUids(db, uids);
  return new Map(found.map(({ row, parts }) => [row.uid!, { row, version: versionOf([parts]) }]));
}

/** The readable attestations among these uids, by uid. */
export async function findByUids(db: Db, uids: string[]): Promise<Map<string, AttestationRow>> {
  const found = await recordsByUids(db, uids);
  return new Map(found.map(({ row }) => [row.uid!, row]));
}

/** The versions of these uids' records as stored now (version-store.ts), reading no record's bulk. */
export async function versionsOfUids(db: Db, uids: string[]): Promise<Map<string, string>> {
  return new Map(await versionsByUids(db, uids));
}

interface AccountRecordsQuery {
  accountId: string;
  type?: AttestationOrigin | undefined;
  mode?: AttestationMode | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  beforeId?: bigint | undefined;
  limit: number;
}

/** A page of an account's own readable attestations, newest first (its `(account_id, id)` indexes walk it). */
export async function accountRecords(db: Db, q: AccountRecordsQuery): Promise<AttestationRow[]> {
  let query = db
    .selectFrom('attestations')
    .select(recordColumns)
    .where('attestations.accountId', '=', q.accountId)
    .where('attestations.uid', 'is not', null);
  if (q.type) query = query.where('attestations.type', '=', q.type);
  if (q.mode) query = query.where('attestations.mode', '=', q.mode);
  if (q.from) query = query.where('attestations.createdAt', '>=', q.from);
  if (q.to) query = query.where('attestations.createdAt', '<', q.to);
  if (q.beforeId !== undefined) query = query.where('attestations.id', '<', q.beforeId.toString());
  const rows = await query.orderBy('attestations.id', 'desc').limit(q.limit).execute();
  // through the name mapping (camelCase keys): only the 64-bit columns need their type
  return rows.map(
    (row) =>
      ({
        ...row,
        id: BigInt(row.id),
        blockNumber: row.blockNumber === null ? null : BigInt(row.blockNumber),
      }) as AttestationRow,
  );
}

import { sql as raw, type ExpressionBuilder } from 'kysely';
import { accountNameSubquery } from '../accounts/store.ts';
import type { AnchorColumns } from '../anchoring/record.ts';
import type { Db, DB } from '../db/database.ts';
import { precompiled } from '../db/precompiled.ts';
import type { AttestationMode, AttestationOrigin } from './states.ts';
import { fromRaw } from './record-raw.ts';
import type { AttestationRow } from './store.ts';

/**
 * The parts of a record read from other rows than its own: its promotion's uid, its anchor, its claimant's name and
 * domain. A change to one of them leaves the record's own row (and its `xmin`) as it was (attestations/search-store.ts).
 */
export const linkedColumns = (eb: ExpressionBuilder<DB, 'attestations'>) =>
  [
    // a promotion names its original; the original reads its on-chain uid back through that link (docs/decisions.md)
    eb
      .selectFrom('attestations as p')
      .select('p.uid')
      .whereRef('p.offchainUid', '=', 'attestations.uid')
      // literals, not parameters (a precompiled read takes only its own); the index's predicate says <> 'failed'
      .where('p.status', '<>', raw.lit('failed'))
      .where('p.status', '=', raw.lit('confirmed'))
      .as('onchainUid'),
    eb
      .selectFrom('anchors as n')
      .select((n) =>
        n
          .fn<AnchorColumns['anchor']>('json_build_object', [
            raw.lit('root'),
            'n.root',
            raw.lit('txHash'),
            'n.txHash',
            raw.lit('blockNumber'),
            'n.blockNumber',
            raw.lit('timestamp'),
            'n.timestamp',
          ])
          .as('anchor'),
      )
      .whereRef('n.id', '=', 'attestations.anchorId')
      .where('n.txHash', 'is not', null)
      .as('anchor'),
    eb
      .case()
      .when('attestations.delegation', 'is not', null)
      .then(accountNameSubquery(eb.ref('attestations.accountId')))
      .end()
      .as('claimantName'),
    eb
      .case()
      .when('attestations.delegation', 'is not', null)
      .then(
        eb
          .selectFrom('accountDomains as d')
          .select('d.domain')
          .whereRef('d.accountId', '=', 'attestations.accountId')
          .where('d.verifiedAt', 'is not', null)
          .orderBy('d.verifiedAt')
          .orderBy('d.domain')
          // a literal: the precompiled reads take no parameter but their own
          .limit(raw.lit(1)),
      )
      .end()
      .as('claimantDomain'),
  ] as const;

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
      .where((eb) => eb('attestations.uid', '=', eb.fn.any(eb.val(uids)))),
  [[]],
  fromRaw,
);

/** The readable attestations among these uids (pending on-chain ones have no uid yet), by uid. */
export async function findByUids(db: Db, uids: string[]): Promise<Map<string, AttestationRow>> {
  const rows = await recordsByUids(db, uids);
  return new Map(rows.map((row) => [row.uid!, row]));
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

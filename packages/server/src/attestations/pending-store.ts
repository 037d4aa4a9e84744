import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Attestation } from '../generated/kysely/database.ts';
import type { AttestationOrigin, AttestationStatus } from './states.ts';

type Model = Selectable<Attestation>;

/** An on-chain attestation waiting for the relayer: no uid yet, its quota period charged. */
export type PendingAttestation = Pick<
  Model,
  | 'accountId'
  | 'apiKeyId'
  | 'contentHash'
  | 'contentType'
  | 'digitalSourceType'
  | 'chainId'
  | 'schemaUid'
  | 'attester'
  | 'createdAt'
  | 'idempotencyKey'
  | 'batchId'
  | 'batchIndex'
> & {
  /** The on-chain attestation it derives from (EAS refUID); absent or null for none. */
  refUid?: string | null;
  /** The model behind an AI claim and its prompt hash; absent or null for none. */
  aiModel?: string | null;
  aiPromptHash?: string | null;
  /** A promotion's off-chain original; absent for a create. */
  offchainUid?: string;
  type: AttestationOrigin;
  quotaPeriod: string;
  /** The span of the request that made it, where its transaction served others too (a group commit's). */
  traceparent?: string | null;
};

/** The columns of a pending on-chain row: mode and status are the relayer's starting point. */
export const pendingValues = (row: PendingAttestation) => ({
  accountId: row.accountId,
  apiKeyId: row.apiKeyId,
  type: row.type,
  digitalSourceType: row.digitalSourceType,
  mode: 'onchain',
  status: 'pending',
  contentHash: row.contentHash,
  contentType: row.contentType,
  chainId: row.chainId,
  schemaUid: row.schemaUid,
  attester: row.attester,
  createdAt: row.createdAt,
  quotaPeriod: row.quotaPeriod,
  idempotencyKey: row.idempotencyKey,
  batchId: row.batchId,
  batchIndex: row.batchIndex,
  refUid: row.refUid ?? null,
  aiModel: row.aiModel ?? null,
  aiPromptHash: row.aiPromptHash ?? null,
  ...(row.offchainUid === undefined ? {} : { offchainUid: row.offchainUid }),
  // unset, the column's default names the span the transaction serves (db/database.ts)
  ...(row.traceparent === undefined ? {} : { traceparent: row.traceparent }),
});

/** Ids in order: one multi-row insert numbers its rows as listed, and the caller pairs them by position. */
export const inOrder = (rows: Array<{ id: string }>): string[] =>
  rows.map((row) => row.id).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));

/** Stores on-chain attestations waiting for the relayer (no uid until their Attested log); returns their ids in order. */
export async function insertPending(db: Db, rows: PendingAttestation[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const inserted = await db.insertInto('attestations').values(rows.map(pendingValues)).returning('id').execute();
  return inOrder(inserted);
}

export type RelayOutcome = Pick<Model, 'id' | 'uid' | 'txHash' | 'failureReason'> & { status: AttestationStatus };

export async function outcomesOf(db: Db, ids: string[]): Promise<Map<string, RelayOutcome>> {
  const rows = await db
    .selectFrom('attestations')
    .select(['id', 'status', 'uid', 'txHash', 'failureReason'])
    .where((eb) => eb('id', '=', eb.fn.any(eb.val(ids))))
    .$narrowType<{ status: AttestationStatus }>()
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** The relayer's backlog: items still waiting for a mined transaction, and when the oldest create was made. */
interface RelayBacklog {
  attest: number;
  revoke: number;
  oldest: Date | null;
}

/** The backlog in one statement of index scans: (status, id) and (revoke_state). */
export async function relayBacklog(db: Db): Promise<RelayBacklog> {
  return db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('attestations')
        .select((sub) => sub.cast<number>(sub.fn.countAll(), 'integer').as('n'))
        .where('status', '=', 'pending')
        .as('attest'),
      eb
        .selectFrom('attestations')
        .select((sub) => sub.cast<number>(sub.fn.countAll(), 'integer').as('n'))
        .where('revokeState', '=', 'pending')
        .as('revoke'),
      eb
        .selectFrom('attestations')
        .select('createdAt')
        .where('status', '=', 'pending')
        .orderBy('id')
        .limit(1)
        .as('oldest'),
    ])
    .$castTo<RelayBacklog>()
    .executeTakeFirstOrThrow();
}

import type { Selectable } from 'kysely';
import type { AnchorColumns } from '../anchoring/record.ts';
import type { Db } from '../db/database.ts';
import { precompiled } from '../db/precompiled.ts';
import { jsonRows, jsonText } from '../db/recordset.ts';
import type { Attestation } from '../generated/kysely/database.ts';
import type { AttestationMode, AttestationOrigin, AttestationStatus } from './states.ts';

type Model = Selectable<Attestation>;

/** Its text columns narrowed to their closed sets; the off-chain package is whatever the signer made. */
type Narrowed = {
  type: AttestationOrigin;
  mode: AttestationMode;
  status: AttestationStatus;
  /** The signed package's JSON text, as stored. */
  offchain: string | null;
  /** The signed AI-details package's JSON text, likewise. */
  aiOffchain: string | null;
};

/**
 * Whether a customer attester signed it (docs/decisions.md, "Customer attesters"), and then its claim: its account's
 * self-chosen name, and the first domain the account proved (null: none).
 */
export type ClaimantColumns = { delegated: boolean; claimantName: string | null; claimantDomain: string | null };

/** A promoted off-chain attestation's on-chain uid, read through its promotion's link (null until mined). */
export type PromotionColumns = { onchainUid: string | null };

/** An attestation as stored (content is never stored, only its hash): the columns the API reads, and its anchor. */
export type AttestationRow = Pick<
  Model,
  | 'uid'
  | 'accountId'
  | 'apiKeyId'
  | 'contentHash'
  | 'contentType'
  | 'chainId'
  | 'schemaUid'
  | 'attester'
  | 'txHash'
  | 'createdAt'
  | 'revokedAt'
  | 'revocationTxHash'
  | 'digitalSourceType'
  | 'refUid'
  | 'offchainUid'
  | 'aiModel'
  | 'aiPromptHash'
> & { id: bigint; blockNumber: bigint | null } & Narrowed &
  PromotionColumns &
  AnchorColumns &
  ClaimantColumns;

export type NewAttestation = Omit<
  AttestationRow,
  | 'id'
  | 'txHash'
  | 'blockNumber'
  | 'revokedAt'
  | 'revocationTxHash'
  | 'offchain'
  | 'aiOffchain'
  | keyof AnchorColumns
  | keyof ClaimantColumns
  | 'offchainUid'
  | keyof PromotionColumns
> & { /** The signed packages (stored as jsonb). */ offchain: unknown; aiOffchain: unknown } & Partial<
    Pick<Model, 'batchId' | 'batchIndex'>
  >;

/** A new row's stored columns with their PostgreSQL types, as the insert reads them from one JSON parameter. */
const NEW_ROW_TYPES = {
  uid: 'text',
  accountId: 'uuid',
  apiKeyId: 'uuid',
  type: 'text',
  digitalSourceType: 'text',
  mode: 'text',
  status: 'text',
  contentHash: 'bpchar',
  contentType: 'text',
  chainId: 'int',
  schemaUid: 'bpchar',
  attester: 'bpchar',
  offchain: 'jsonb',
  refUid: 'bpchar',
  aiModel: 'text',
  aiPromptHash: 'bpchar',
  aiOffchain: 'jsonb',
  createdAt: 'timestamptz',
  batchId: 'uuid',
  batchIndex: 'int',
} as const;
const NEW_ROW_COLUMNS = Object.keys(NEW_ROW_TYPES) as Array<keyof typeof NEW_ROW_TYPES>;

/** A new row as the insert reads it: its columns (one left out is null) and its position in the group. */
type NewRowValues = NewAttestation & { position: number };

/** One statement for any number of rows (a group commit's): its text never changes, so it is prepared once. */
const insertRows = precompiled(
  (db: Db, rows: NewRowValues[]) =>
    db
      .insertInto('attestations')
      .columns(NEW_ROW_COLUMNS)
      .expression((eb) =>
        eb
          .selectFrom(jsonRows(rows, { ...NEW_ROW_TYPES, position: 'int' }, 'r'))
          .select(NEW_ROW_COLUMNS.map((column) => `r.${column}` as const))
          .orderBy('r.position'),
      ),
  [[] as NewRowValues[]],
  () => undefined,
  (rows) => [jsonText(rows)],
);

/** Inserts many attestations in one statement, in order: their ids follow it (none: no statement). */
export async function insertAttestations(db: Db, rows: NewAttestation[]): Promise<void> {
  if (rows.length === 0) return;
  // the signed packages go as JSON values of the parameter, stored as they are
  await insertRows(
    db,
    rows.map((row, position) => ({ ...row, position })),
  );
}

export type BatchItemRow = Pick<
  AttestationRow,
  'uid' | 'txHash' | 'mode' | 'type' | 'digitalSourceType' | 'aiModel' | 'aiPromptHash'
> & {
  batchId: NonNullable<Model['batchId']>;
  /** The signed packages, parsed. */
  offchain: unknown;
  aiOffchain: unknown;
};

/** The items of batches, in request order, as their batch response shows them. */
export async function batchItems(db: Db, batchIds: string[]): Promise<BatchItemRow[]> {
  return db
    .selectFrom('attestations')
    .select([
      'batchId',
      'uid',
      'txHash',
      'mode',
      'type',
      'digitalSourceType',
      'offchain',
      'aiModel',
      'aiPromptHash',
      'aiOffchain',
    ])
    .where((eb) => eb('batchId', '=', eb.fn.any(eb.val(batchIds))))
    .orderBy('batchId')
    .orderBy('batchIndex')
    .$narrowType<{ batchId: NonNullable<Model['batchId']>; mode: AttestationMode; type: AttestationOrigin }>()
    .execute();
}

import type { Db } from '../db/database.ts';
import { pendingValues, type PendingAttestation } from './pending-store.ts';
import type { AttestationMode, AttestationOrigin } from './states.ts';

/** An attestation asked to be promoted, as the checks and the copy need it. */
export interface PromotionOriginal {
  uid: string;
  accountId: string;
  mode: AttestationMode;
  type: AttestationOrigin;
  digitalSourceType: string | null;
  aiModel: string | null;
  aiPromptHash: string | null;
  contentHash: string;
  contentType: string;
  attester: string;
  revokedAt: Date | null;
  /** A revocation under way (the relayer has not mined it yet). */
  revoking: boolean;
  /** A customer attester signed it (docs/decisions.md, "Customer attesters"). */
  delegated: boolean;
}

/**
 * The attestations of these uids, each locked until the transaction ends: a second promotion of one waits here, then
 * finds the first one's row. Locked in uid order, so two batches naming the same uids cannot wait on each other.
 */
export async function lockOriginals(db: Db, uids: string[]): Promise<Map<string, PromotionOriginal>> {
  const rows = await db
    .selectFrom('attestations')
    .select((eb) => [
      'uid',
      'accountId',
      'mode',
      'type',
      'digitalSourceType',
      'aiModel',
      'aiPromptHash',
      'contentHash',
      'contentType',
      'attester',
      'revokedAt',
      eb('revokeState', '=', 'pending').as('revoking'),
      eb('delegation', 'is not', null).as('delegated'),
    ])
    .where((eb) => eb('uid', '=', eb.fn.any(eb.val(uids))))
    .orderBy('uid')
    .forUpdate()
    .$narrowType<{ uid: string; mode: AttestationMode; type: AttestationOrigin }>()
    .execute();
  return new Map(
    rows.map((row) => [row.uid, { ...row, revoking: row.revoking === true, delegated: row.delegated === true }]),
  );
}

/** The live (not failed) promotions of these originals: their on-chain rows' ids, by original uid. */
export async function livePromotions(db: Db, offchainUids: string[]): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('attestations')
    .select(['id', 'offchainUid'])
    .where((eb) => eb('offchainUid', '=', eb.fn.any(eb.val(offchainUids))))
    .where('status', '<>', 'failed')
    .$narrowType<{ offchainUid: string }>()
    .execute();
  return new Map(rows.map((row) => [row.offchainUid, row.id]));
}

/** Stores promotions as pending on-chain attestations, each naming its original; returns their ids by original. */
export async function insertPromotions(
  db: Db,
  rows: Array<PendingAttestation & { offchainUid: string }>,
): Promise<Map<string, string>> {
  if (rows.length === 0) return new Map();
  const inserted = await db
    .insertInto('attestations')
    .values(rows.map(pendingValues))
    .returning(['id', 'offchainUid'])
    .$narrowType<{ offchainUid: string }>()
    .execute();
  return new Map(inserted.map((row) => [row.offchainUid, row.id]));
}

import type { Selectable } from 'kysely';
import type { Hex } from 'viem';
import type { MemberActor } from '../../audit/entry.ts';
import type { Db } from '../../db/database.ts';
import type { ApiKey, Attestation } from '../../generated/kysely/database.ts';
import { releaseMany } from '../../idempotency/store.ts';
import type { AttestationMode, RevokeState } from '../states.ts';

type Model = Selectable<Attestation>;

/**
 * An attestation a revocation transaction carries: `apiKeyId` and `keyPrefix` are the key that asked (the one that
 * created it when a dashboard member asked), whose Idempotency-Key the request carried.
 */
export type RevokeItem = Pick<Model, 'id' | 'accountId' | 'apiKeyId'> & {
  uid: Hex;
  mode: AttestationMode;
  keyPrefix: Selectable<ApiKey>['prefix'];
  idempotencyKey: Model['revokeIdempotencyKey'];
  reason: Model['revocationReason'];
  /** The dashboard member who asked; null when a key asked through the API. */
  actor: MemberActor | null;
};

/** Who asks for a revocation and why: the request's Idempotency-Key (API) or the member (dashboard) rides along. */
export interface RevocationRequest {
  reason: string | null;
  /** The key that asks; null for a dashboard member. */
  apiKeyId: string | null;
  idempotencyKey: string | null;
  actor: MemberActor | null;
}

/**
 * Marks an attestation for the relayer to revoke, unless it is revoked or being revoked already; true when it was
 * marked. The request's Idempotency-Key rides along, so the relayer can store the response, and so does the
 * dashboard member who asked, so its audit entry names them.
 */
export async function requestRevocation(db: Db, uid: string, request: RevocationRequest): Promise<boolean> {
  const rows = await db
    .updateTable('attestations')
    .set({
      revokeState: 'pending',
      revocationReason: request.reason,
      revokeIdempotencyKey: request.idempotencyKey,
      revokeActor: request.actor === null ? null : JSON.stringify(request.actor),
      revokeApiKeyId: request.apiKeyId,
    })
    .where('uid', '=', uid)
    .where('revokedAt', 'is', null)
    .where((eb) => eb.or([eb('revokeState', 'is', null), eb('revokeState', '=', 'failed')]))
    .returning('id')
    .execute();
  return rows.length === 1;
}

type RevocationState = Pick<Model, 'revokedAt' | 'revocationTxHash'> & { revokeState: RevokeState | null };

export async function revocationOf(db: Db, uid: string): Promise<RevocationState | undefined> {
  return db
    .selectFrom('attestations')
    .select(['revokeState', 'revokedAt', 'revocationTxHash'])
    .where('uid', '=', uid)
    .$narrowType<{ revokeState: RevokeState | null }>()
    .executeTakeFirst();
}

/**
 * Claims pending revocations of one mode (on-chain ones are `multiRevoke`, off-chain ones `multiRevokeOffchain`);
 * the journal entry (`open`, told how many) is made only when some are waiting, and may be declined.
 */
export async function claimRevocations(
  db: Db,
  mode: AttestationMode,
  max: number,
  open: (count: number) => Promise<string | undefined>,
): Promise<{ journalId: string; count: number } | undefined> {
  const rows = await db
    .selectFrom('attestations')
    .select('id')
    .where('revokeState', '=', 'pending')
    .where('revokeRelayTxId', 'is', null)
    .where('mode', '=', mode)
    .where('uid', 'is not', null)
    .orderBy('id')
    .limit(max)
    .forUpdate()
    .skipLocked()
    .execute();
  if (rows.length === 0) return undefined;
  const journalId = await open(rows.length);
  if (journalId === undefined) return undefined;
  await db
    .updateTable('attestations')
    .set({ revokeRelayTxId: journalId })
    .where((eb) => eb('id', '=', eb.fn.any(eb.val(rows.map((r) => r.id)))))
    .execute();
  return { journalId, count: rows.length };
}

export async function revocationsOf(db: Db, journalId: string): Promise<RevokeItem[]> {
  return db
    .selectFrom('attestations as a')
    .innerJoin('apiKeys as k', (join) =>
      join.on((eb) => eb('k.id', '=', eb.fn.coalesce('a.revokeApiKeyId', 'a.apiKeyId'))),
    )
    .select([
      'a.id',
      'a.uid',
      'a.mode',
      'a.accountId',
      'k.id as apiKeyId',
      'k.prefix as keyPrefix',
      'a.revokeIdempotencyKey as idempotencyKey',
      'a.revocationReason as reason',
      'a.revokeActor as actor',
    ])
    .where('a.revokeRelayTxId', '=', journalId)
    .orderBy('a.id')
    .$castTo<RevokeItem>()
    .execute();
}

export async function markRevoked(db: Db, journalId: string, txHash: string, at: Date): Promise<void> {
  await db
    .updateTable('attestations')
    .set({ revokeState: 'done', revokedAt: at, revocationTxHash: txHash })
    .where('revokeRelayTxId', '=', journalId)
    .where('revokeState', '=', 'pending')
    .execute();
}

/** A revocation whose transaction failed: the attestation stands, and the request's Idempotency-Key is released. */
export async function failRevocations(db: Db, journalId: string): Promise<void> {
  const rows = await db
    .updateTable('attestations')
    .set({ revokeState: 'failed', revokeRelayTxId: null })
    .where('revokeRelayTxId', '=', journalId)
    .where('revokeState', '=', 'pending')
    .returning((eb) => [eb.fn.coalesce('revokeApiKeyId', 'apiKeyId').as('apiKeyId'), 'revokeIdempotencyKey'])
    .execute();
  await releaseMany(
    db,
    rows.filter((r) => r.revokeIdempotencyKey).map((r) => ({ apiKeyId: r.apiKeyId, key: r.revokeIdempotencyKey! })),
  );
}

export async function requeueRevocations(db: Db, journalId: string): Promise<void> {
  await db
    .updateTable('attestations')
    .set({ revokeRelayTxId: null })
    .where('revokeRelayTxId', '=', journalId)
    .where('revokeState', '=', 'pending')
    .execute();
}

/** A reorg took the revocation's transaction off the chain: the attestation is not revoked until it is mined again. */
export async function reviveRevocations(db: Db, journalId: string): Promise<void> {
  await db
    .updateTable('attestations')
    .set({ revokeState: 'pending', revokedAt: null, revocationTxHash: null })
    .where('revokeRelayTxId', '=', journalId)
    .where('revokeState', '=', 'done')
    .execute();
}

import type { Hex } from 'viem';
import type { MemberActor } from '../../audit/entry.ts';
import type { Db } from '../../db/database.ts';
import type { PgRow, Prisma } from '../../db/rows.ts';
import type { Sql } from '../../db/sql.ts';
import { releaseMany } from '../../idempotency/store.ts';
import type { AttestationMode, RevokeState } from '../states.ts';

type Model = Prisma.AttestationModel;

/**
 * An attestation a revocation transaction carries: `apiKeyId` and `keyPrefix` are the key that asked (the one that
 * created it when a dashboard member asked), whose Idempotency-Key the request carried.
 */
export type RevokeItem = PgRow<Pick<Model, 'id' | 'accountId' | 'apiKeyId'>> & {
  uid: Hex;
  mode: AttestationMode;
  keyPrefix: Prisma.ApiKeyModel['prefix'];
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

export type RevocationState = Pick<Model, 'revokedAt' | 'revocationTxHash'> & { revokeState: RevokeState | null };

/** Where an attestation's revocation stands. */
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
  sql: Sql,
  mode: AttestationMode,
  max: number,
  open: (count: number) => Promise<string | undefined>,
): Promise<{ journalId: string; count: number } | undefined> {
  const rows = await sql.query<{ id: string }>(
    `SELECT id::text FROM attestations WHERE revoke_state = 'pending' AND revoke_relay_tx_id IS NULL AND mode = $1
       AND uid IS NOT NULL
     ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [mode, max],
  );
  if (rows.length === 0) return undefined;
  const journalId = await open(rows.length);
  if (journalId === undefined) return undefined;
  await sql.query(`UPDATE attestations SET revoke_relay_tx_id = $1::bigint WHERE id = ANY($2::bigint[])`, [
    journalId,
    rows.map((r) => r.id),
  ]);
  return { journalId, count: rows.length };
}

export async function revocationsOf(sql: Sql, journalId: string): Promise<RevokeItem[]> {
  return sql.query<RevokeItem>(
    `SELECT a.id::text, a.uid, a.mode, a.account_id AS "accountId", k.id AS "apiKeyId", k.prefix AS "keyPrefix",
            a.revoke_idempotency_key AS "idempotencyKey", a.revocation_reason AS reason, a.revoke_actor AS actor
     FROM attestations a JOIN api_keys k ON k.id = COALESCE(a.revoke_api_key_id, a.api_key_id)
     WHERE a.revoke_relay_tx_id = $1::bigint ORDER BY a.id`,
    [journalId],
  );
}

export async function markRevoked(sql: Sql, journalId: string, txHash: string, at: Date): Promise<void> {
  await sql.query(
    `UPDATE attestations SET revoke_state = 'done', revoked_at = $2, revocation_tx_hash = $3 WHERE revoke_relay_tx_id = $1::bigint AND revoke_state = 'pending'`,
    [journalId, at, txHash],
  );
}

/** A revocation whose transaction failed: the attestation stands, and the request's Idempotency-Key is released. */
export async function failRevocations(sql: Sql, journalId: string): Promise<void> {
  const rows = await sql.query<{ api_key_id: string; revoke_idempotency_key: string | null }>(
    `UPDATE attestations SET revoke_state = 'failed', revoke_relay_tx_id = NULL WHERE revoke_relay_tx_id = $1::bigint AND revoke_state = 'pending'
     RETURNING COALESCE(revoke_api_key_id, api_key_id) AS api_key_id, revoke_idempotency_key`,
    [journalId],
  );
  await releaseMany(
    sql,
    rows
      .filter((r) => r.revoke_idempotency_key)
      .map((r) => ({ apiKeyId: r.api_key_id, key: r.revoke_idempotency_key! })),
  );
}

export async function requeueRevocations(sql: Sql, journalId: string): Promise<void> {
  await sql.query(
    `UPDATE attestations SET revoke_relay_tx_id = NULL WHERE revoke_relay_tx_id = $1::bigint AND revoke_state = 'pending'`,
    [journalId],
  );
}

/** A reorg took the revocation's transaction off the chain: the attestation is not revoked until it is mined again. */
export async function reviveRevocations(sql: Sql, journalId: string): Promise<void> {
  await sql.query(
    `UPDATE attestations SET revoke_state = 'pending', revoked_at = NULL, revocation_tx_hash = NULL
     WHERE revoke_relay_tx_id = $1::bigint AND revoke_state = 'done'`,
    [journalId],
  );
}

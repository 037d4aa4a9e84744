import type { Sql } from '../db/sql.ts';
import { releaseMany } from '../idempotency/store.ts';

export interface RevokeItem {
  id: string;
  uid: `0x${string}`;
  mode: 'onchain' | 'offchain';
  accountId: string;
  apiKeyId: string;
  keyPrefix: string;
  idempotencyKey: string | null;
  reason: string | null;
}

/** Claims pending revocations of one mode (on-chain ones are `multiRevoke`, off-chain ones `multiRevokeOffchain`). */
export async function claimRevocations(sql: Sql, journalId: string, mode: 'onchain' | 'offchain', max: number): Promise<number> {
  const rows = await sql.query<{ id: string }>(
    `UPDATE attestations SET revoke_relay_tx_id = $1::bigint WHERE id IN (
       SELECT id FROM attestations WHERE revoke_state = 'pending' AND revoke_relay_tx_id IS NULL AND mode = $2 ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED
     ) RETURNING id::text`,
    [journalId, mode, max],
  );
  return rows.length;
}

export async function revocationsOf(sql: Sql, journalId: string): Promise<RevokeItem[]> {
  return sql.query<RevokeItem>(
    `SELECT a.id::text, a.uid, a.mode, a.account_id AS "accountId", a.api_key_id AS "apiKeyId", k.prefix AS "keyPrefix",
            a.revoke_idempotency_key AS "idempotencyKey", a.revocation_reason AS reason
     FROM attestations a JOIN api_keys k ON k.id = a.api_key_id WHERE a.revoke_relay_tx_id = $1::bigint ORDER BY a.id`,
    [journalId],
  );
}

export async function markRevoked(sql: Sql, journalId: string, txHash: string, at: Date): Promise<void> {
  await sql.query(`UPDATE attestations SET revoke_state = 'done', revoked_at = $2, revocation_tx_hash = $3 WHERE revoke_relay_tx_id = $1::bigint AND revoke_state = 'pending'`, [journalId, at, txHash]);
}

/** A revocation whose transaction failed: the attestation stands, and the request's Idempotency-Key is released. */
export async function failRevocations(sql: Sql, journalId: string): Promise<void> {
  const rows = await sql.query<{ api_key_id: string; revoke_idempotency_key: string | null }>(
    `UPDATE attestations SET revoke_state = 'failed', revoke_relay_tx_id = NULL WHERE revoke_relay_tx_id = $1::bigint AND revoke_state = 'pending'
     RETURNING api_key_id, revoke_idempotency_key`,
    [journalId],
  );
  await releaseMany(sql, rows.filter((r) => r.revoke_idempotency_key).map((r) => ({ apiKeyId: r.api_key_id, key: r.revoke_idempotency_key! })));
}

export async function requeueRevocations(sql: Sql, journalId: string): Promise<void> {
  await sql.query(`UPDATE attestations SET revoke_relay_tx_id = NULL WHERE revoke_relay_tx_id = $1::bigint AND revoke_state = 'pending'`, [journalId]);
}

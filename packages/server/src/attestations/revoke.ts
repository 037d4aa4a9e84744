import { setTimeout as sleep } from 'node:timers/promises';
import { enqueueRelay } from '../chain/relay.task.ts';
import { inTransaction, pgSql, type Pool } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import type { AuthenticatedKey } from '../keys/service.ts';
import type { OnchainSubmitter } from './onchain.ts';
import type { RequestInfo } from './service.ts';
import { findByUids } from './store.ts';

export interface RevokeResult {
  uid: string;
  revoked: true;
  revokedAt: string;
  txHash: string | null;
}

function alreadyRevoked(uid: string, revokedAt: Date | null): AppError {
  return new AppError('ALREADY_REVOKED', revokedAt ? `Attestation ${uid} was revoked at ${revokedAt.toISOString()}.` : `Attestation ${uid} is being revoked already.`, { uid, revokedAt: revokedAt?.toISOString() ?? null });
}

/**
 * Revocation, API side: only the account that created an attestation may revoke it. The relayer signs for the
 * caller: `EAS.revoke` for on-chain attestations, `EAS.revokeOffchain(uid)` from the attester for off-chain ones.
 */
export function createRevokeService(deps: { pool: Pool; onchain: OnchainSubmitter; waitMs?: number }) {
  const { pool, onchain } = deps;
  const sql = pgSql(pool);
  const waitMs = deps.waitMs ?? 60_000;

  return {
    async revoke(auth: AuthenticatedKey, uid: string, reason: string | undefined, request: RequestInfo): Promise<RevokeResult> {
      const key = uid.toLowerCase();
      const row = (await findByUids(sql, [key])).get(key);
      if (!row) throw notFound(`Attestation ${uid}`);
      if (row.accountId !== auth.accountId) throw new AppError('FORBIDDEN', 'Only the account that created an attestation may revoke it.');
      if (row.revokedAt) throw alreadyRevoked(key, row.revokedAt);
      await onchain.ensureAvailable();
      const claimed = await inTransaction(pool, async (tx) => {
        const rows = await tx.query(
          `UPDATE attestations SET revoke_state = 'pending', revocation_reason = $2, revoke_idempotency_key = $3
           WHERE uid = $1 AND revoked_at IS NULL AND (revoke_state IS NULL OR revoke_state = 'failed') RETURNING id`,
          [key, reason ?? null, request.idempotency?.key ?? null],
        );
        if (rows.length === 1) await enqueueRelay(tx);
        return rows.length === 1;
      });
      if (!claimed) throw alreadyRevoked(key, null);
      // the relayer stores the response when the revocation is mined
      if (request.idempotency) request.idempotency.completed = true;
      const deadline = Date.now() + waitMs;
      for (;;) {
        const [state] = await sql.query<{ revoke_state: string; revoked_at: Date | null; revocation_tx_hash: string | null }>(
          `SELECT revoke_state, revoked_at, revocation_tx_hash FROM attestations WHERE uid = $1`,
          [key],
        );
        if (state?.revoke_state === 'done') return { uid: key, revoked: true, revokedAt: state.revoked_at!.toISOString(), txHash: state.revocation_tx_hash };
        if (state?.revoke_state === 'failed') throw new AppError('CHAIN_UNAVAILABLE', 'The revocation transaction failed; the attestation still stands. Retry later.', {}, { 'Retry-After': '10' });
        if (Date.now() >= deadline) throw new AppError('CHAIN_UNAVAILABLE', 'The revocation is still pending; retry with the same Idempotency-Key for its result.', { pending: true }, { 'Retry-After': '10' });
        await sleep(150);
      }
    },
  };
}

export type RevokeService = ReturnType<typeof createRevokeService>;

import { enqueueRelay } from '../../chain/relay.task.ts';
import { inTransaction, pgSql, type Pool } from '../../db/sql.ts';
import { AppError, notFound } from '../../errors.ts';
import type { GatedRequest } from '../../idempotency/service.ts';
import type { AuthenticatedKey } from '../../keys/service.ts';
import type { OnchainSubmitter } from '../onchain.ts';
import { waitForRelayer } from '../relay-wait.ts';
import { findByUids } from '../store.ts';
import { requestRevocation, revocationOf } from './store.ts';

export interface RevokeResult {
  uid: string;
  revoked: true;
  revokedAt: string;
  txHash: string | null;
}

function alreadyRevoked(uid: string, revokedAt: Date | null): AppError {
  return new AppError(
    'ALREADY_REVOKED',
    revokedAt
      ? `Attestation ${uid} was revoked at ${revokedAt.toISOString()}.`
      : `Attestation ${uid} is being revoked already.`,
    { uid, revokedAt: revokedAt?.toISOString() ?? null },
  );
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
    async revoke(
      auth: AuthenticatedKey,
      uid: string,
      reason: string | undefined,
      request: GatedRequest,
    ): Promise<RevokeResult> {
      const key = uid.toLowerCase();
      const row = (await findByUids(sql, [key])).get(key);
      if (!row) throw notFound(`Attestation ${uid}`);
      if (row.accountId !== auth.accountId)
        throw new AppError('FORBIDDEN', 'Only the account that created an attestation may revoke it.');
      if (row.revokedAt) throw alreadyRevoked(key, row.revokedAt);
      await onchain.ensureAvailable();
      const claimed = await inTransaction(pool, async (tx) => {
        const marked = await requestRevocation(tx, key, reason ?? null, request.idempotency?.key ?? null);
        if (marked) await enqueueRelay(tx);
        return marked;
      });
      if (!claimed) throw alreadyRevoked(key, null);
      // the relayer stores the response when the revocation is mined
      request.idempotency?.markCompleted();
      return waitForRelayer<RevokeResult>(
        async () => {
          const state = await revocationOf(sql, key);
          if (state?.revokeState === 'done')
            return {
              state: 'done',
              value: {
                uid: key,
                revoked: true,
                revokedAt: state.revokedAt!.toISOString(),
                txHash: state.revocationTxHash,
              },
            };
          return state?.revokeState === 'failed' ? { state: 'failed', reason: null } : { state: 'pending' };
        },
        {
          waitMs,
          failed: () =>
            new AppError(
              'CHAIN_UNAVAILABLE',
              'The revocation transaction failed; the attestation still stands. Retry later.',
              {},
              { 'Retry-After': '10' },
            ),
          stillPending: () =>
            new AppError(
              'CHAIN_UNAVAILABLE',
              'The revocation is still pending; retry with the same Idempotency-Key for its result.',
              { pending: true },
              { 'Retry-After': '10' },
            ),
        },
      );
    },
  };
}

export type RevokeService = ReturnType<typeof createRevokeService>;

import { enqueueRelay } from '../../chain/relay.task.ts';
import { inTransaction, type Db } from '../../db/database.ts';
import type { MemberActor } from '../../audit/entry.ts';
import { AppError, notFound } from '../../errors.ts';
import type { GatedRequest } from '../../idempotency/service.ts';
import type { AuthenticatedKey } from '../../keys/service.ts';
import type { OnchainSubmitter } from '../onchain.ts';
import { waitForRelayer } from '../relay-wait.ts';
import { findByUids } from '../record-store.ts';
import { requestRevocation, revocationOf, type RevocationRequest } from './store.ts';

interface RevokeResult {
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

/** A dashboard revocation's answer: `pending` while the relayer is still at it when the wait ends. */
interface MemberRevokeResult {
  uid: string;
  status: 'revoked' | 'pending';
  revokedAt: string | null;
}

function revocationFailed(): AppError {
  return new AppError(
    'CHAIN_UNAVAILABLE',
    'The revocation transaction failed; the attestation still stands. Retry later.',
    {},
    { 'Retry-After': '10' },
  );
}

/**
 * Revocation, API and dashboard side: only the account that created an attestation may revoke it. The relayer signs
 * for the caller: `EAS.revoke` for on-chain attestations, `EAS.revokeOffchain(uid)` from the attester for off-chain
 * ones; once mined it writes the audit entry and the `attestation.revoked` event in the same transaction.
 */
export function createRevokeService(deps: { db: Db; onchain: OnchainSubmitter; waitMs?: number }) {
  const { db, onchain } = deps;
  const waitMs = deps.waitMs ?? 60_000;

  /** The attestation, checked revocable, then marked for the relayer; ALREADY_REVOKED when someone was first. */
  async function claim(uid: string, request: RevocationRequest, mayRevoke: (accountId: string) => void) {
    const row = (await findByUids(db, [uid])).get(uid);
    if (!row) throw notFound(`Attestation ${uid}`);
    mayRevoke(row.accountId);
    if (row.revokedAt) throw alreadyRevoked(uid, row.revokedAt);
    // EAS lets only the attester revoke: the relayer cannot for a customer's address (and one revert would fail a batch)
    if (row.delegated)
      throw new AppError(
        'FORBIDDEN',
        `Attestation ${uid} was signed by your attester ${row.attester}: revoke it from that address (EAS.revoke, or EAS.revokeOffchain for an off-chain one).`,
        { attester: row.attester },
      );
    await onchain.ensureAvailable();
    const claimed = await inTransaction(db, async (tx) => {
      const marked = await requestRevocation(tx, uid, request);
      if (marked) await enqueueRelay(tx);
      return marked;
    });
    if (!claimed) throw alreadyRevoked(uid, null);
  }

  return {
    async revoke(
      auth: AuthenticatedKey,
      uid: string,
      reason: string | undefined,
      request: GatedRequest,
    ): Promise<RevokeResult> {
      const key = uid.toLowerCase();
      const idempotencyKey = request.idempotency?.key ?? null;
      await claim(key, { reason: reason ?? null, apiKeyId: auth.keyId, idempotencyKey, actor: null }, (accountId) => {
        if (accountId !== auth.accountId)
          throw new AppError('FORBIDDEN', 'Only the account that created an attestation may revoke it.');
      });
      // the relayer stores the response when the revocation is mined
      request.idempotency?.markCompleted();
      return waitForRelayer<RevokeResult>(
        async () => {
          const state = await revocationOf(db, key);
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
          failed: revocationFailed,
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

    /**
     * A dashboard member's revocation, in their account (another account's attestation is not found): the same
     * checks, transaction and events as the API's; the audit entry names the member. Still pending when the wait
     * ends, it answers `pending` (the relayer finishes it; there is no Idempotency-Key to retry with).
     */
    async revokeAsMember(
      member: { accountId: string; actor: MemberActor },
      uid: string,
      reason: string | undefined,
    ): Promise<MemberRevokeResult> {
      const key = uid.toLowerCase();
      await claim(
        key,
        { reason: reason ?? null, apiKeyId: null, idempotencyKey: null, actor: member.actor },
        (accountId) => {
          if (accountId !== member.accountId) throw notFound(`Attestation ${uid}`);
        },
      );
      const deadline = Date.now() + waitMs;
      return waitForRelayer<MemberRevokeResult>(
        async () => {
          const state = await revocationOf(db, key);
          if (state?.revokeState === 'done')
            return { state: 'done', value: { uid: key, status: 'revoked', revokedAt: state.revokedAt!.toISOString() } };
          if (state?.revokeState === 'failed') return { state: 'failed', reason: null };
          // the wait ends here with `pending`: waitForRelayer's own deadline, a second later, never throws its 503
          if (Date.now() >= deadline) return { state: 'done', value: { uid: key, status: 'pending', revokedAt: null } };
          return { state: 'pending' };
        },
        { waitMs: waitMs + 1_000, failed: revocationFailed, stillPending: revocationFailed },
      );
    },
  };
}

export type RevokeService = ReturnType<typeof createRevokeService>;

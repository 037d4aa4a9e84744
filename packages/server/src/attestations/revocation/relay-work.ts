import { encodeFunctionData, type Hex } from 'viem';
import { auditEntry } from '../../audit/entry.ts';
import { appendAuditEntries } from '../../audit/append.ts';
import { EAS_ARTIFACT } from '../../chain/eas-artifacts.ts';
import { lockOpenEntry, recordFailed, recordMined, wasReorged } from '../../chain/journal-store.ts';
import type { RoundWork, SendOutcome } from '../../chain/round.ts';
import { SCHEMA_UID } from '@attestation-service/protocol';
import type { Clock } from '../../clock.ts';
import { inTransaction, type Db } from '../../db/database.ts';
import { completeMany } from '../../idempotency/store.ts';
import { emitAttestationEvents } from '../events.ts';
import type { AttestationMode } from '../states.ts';
import {
  claimRevocations,
  failRevocations,
  markRevoked,
  requeueRevocations,
  revocationsOf,
  reviveRevocations,
  type RevokeItem,
} from './store.ts';

/** The most revocations one transaction carries. */
const MAX_REVOCATIONS_PER_TRANSACTION = 100;
/** Gas per item of a `multiRevoke` of 100 (28.1 k) and of a `multiRevokeOffchain` of 100 (25.3 k), rounded up. */
const GAS_PER_REVOCATION = { onchain: 29_000n, offchain: 26_000n } as const;
/** The gas of a revocation transaction with no items (about 40 k measured). */
const REVOCATION_BASE_GAS = 45_000n;

/** The call that revokes these items: `multiRevoke` for on-chain attestations, `multiRevokeOffchain` for off-chain uids. */
function revokeCalldata(mode: AttestationMode, items: RevokeItem[]): Hex {
  if (mode === 'offchain')
    return encodeFunctionData({
      abi: EAS_ARTIFACT.abi,
      functionName: 'multiRevokeOffchain',
      args: [items.map((i) => i.uid)],
    });
  return encodeFunctionData({
    abi: EAS_ARTIFACT.abi,
    functionName: 'multiRevoke',
    args: [[{ schema: SCHEMA_UID, data: items.map((i) => ({ uid: i.uid, value: 0n })) }]],
  });
}

interface RevocationWorkDeps {
  db: Db;
  /** The EAS contract the revocations go to. */
  eas: Hex;
  clock: Clock;
  verifyBaseUrl: string;
}

/**
 * Revocations, relayer side: one transaction per mode and round, through the same journal and sender as
 * attestations. Once mined, in one transaction: the revocation, its Idempotency-Key response, its
 * `attestation.revoked` event and its audit entry. A reorg that takes it away makes it pending again; mined anew it
 * is announced anew (its `revokedAt` is the new one).
 */
export function revocationWork(deps: RevocationWorkDeps, mode: AttestationMode): RoundWork {
  const { db, clock } = deps;

  async function finish(journalId: string, receipt: SendOutcome): Promise<void> {
    if (receipt === 'dropped' || receipt.status !== 'success') {
      // sent again after a reorg, its bytes name the uid the attestation had before the same reorg: revoke the new one
      const stale = receipt !== 'dropped' && (await wasReorged(db, journalId));
      await inTransaction(db, async (tx) => {
        if (!(await lockOpenEntry(tx, journalId))) return;
        if (receipt === 'dropped' || stale) await requeueRevocations(tx, journalId);
        else await failRevocations(tx, journalId);
        await recordFailed(
          tx,
          journalId,
          receipt === 'dropped' ? 'replaced' : `transaction ${receipt.transactionHash} reverted`,
          new Date(clock.now()),
        );
      });
      return;
    }
    const items = await revocationsOf(db, journalId);
    const at = new Date(clock.now());
    const txHash = receipt.transactionHash;
    await inTransaction(db, async (tx) => {
      if (!(await lockOpenEntry(tx, journalId))) return;
      await markRevoked(tx, journalId, txHash, at);
      const claims = items.filter((i) => i.idempotencyKey);
      await completeMany(
        tx,
        claims.map((i) => ({
          apiKeyId: i.apiKeyId,
          key: i.idempotencyKey!,
          status: 200,
          body: { uid: i.uid, revoked: true, revokedAt: at.toISOString(), txHash },
        })),
      );
      await recordMined(
        tx,
        journalId,
        { hash: txHash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, gasUsed: receipt.gasUsed },
        at,
      );
      await emitAttestationEvents(tx, 'attestation.revoked', items, deps.verifyBaseUrl, at);
      await appendAuditEntries(
        tx,
        items.map((i) =>
          auditEntry({
            accountId: i.accountId,
            // a member who revoked from the dashboard acted, not the key that created the attestation
            actorKeyPrefix: i.actor ? null : i.keyPrefix,
            actorMember: i.actor,
            at,
            action: 'attestation.revoked',
            resource: `attestation:${i.uid}`,
            details: { mode: i.mode, txHash, ...(i.reason ? { reason: i.reason } : {}) },
          }),
        ),
      );
    });
  }

  return {
    kind: 'revoke',
    to: deps.eas,
    claim: (tx, gasBudget, open) => {
      const byGas =
        gasBudget === undefined
          ? MAX_REVOCATIONS_PER_TRANSACTION
          : Number((gasBudget - REVOCATION_BASE_GAS) / GAS_PER_REVOCATION[mode]);
      const max = Math.max(1, Math.min(MAX_REVOCATIONS_PER_TRANSACTION, byGas));
      return claimRevocations(tx, mode, max, (count) =>
        open(REVOCATION_BASE_GAS + BigInt(count) * GAS_PER_REVOCATION[mode]),
      );
    },
    calldata: async (journalId) => revokeCalldata(mode, await revocationsOf(db, journalId)),
    finish,
    fail: (tx, journalId) => failRevocations(tx, journalId),
    requeue: (tx, journalId) => requeueRevocations(tx, journalId),
    revive: (tx, journalId) => reviveRevocations(tx, journalId),
  };
}

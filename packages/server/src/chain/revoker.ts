import { encodeFunctionData, type TransactionReceipt } from 'viem';
import { appendAuditEntries } from '../audit/log.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, pgSql, type Pool } from '../db/sql.ts';
import { completeMany } from '../idempotency/store.ts';
import type { Chain } from './connect.ts';
import { EAS_ARTIFACT } from './contracts.ts';
import { recordFailed, recordMined } from './journal.ts';
import { runRound } from './round.ts';
import { claimRevocations, failRevocations, markRevoked, requeueRevocations, revocationsOf, type RevokeItem } from './revoke-store.ts';
import { SCHEMA_UID } from './schema.ts';
import type { Sender } from './sender.ts';
import { emitAttestationEvents } from '../webhooks/outbox.ts';

/** The call that revokes these items: `multiRevoke` for on-chain attestations, `multiRevokeOffchain` for off-chain uids. */
export function revokeCalldata(mode: 'onchain' | 'offchain', items: RevokeItem[]): `0x${string}` {
  if (mode === 'offchain') return encodeFunctionData({ abi: EAS_ARTIFACT.abi, functionName: 'multiRevokeOffchain', args: [items.map((i) => i.uid)] });
  return encodeFunctionData({ abi: EAS_ARTIFACT.abi, functionName: 'multiRevoke', args: [[{ schema: SCHEMA_UID, data: items.map((i) => ({ uid: i.uid, value: 0n })) }]] });
}

/** Revocations, relayer side: the same journal and sender as attestations, one transaction per mode and round. */
export function createRevoker(deps: { pool: Pool; chain: Chain; sender: Sender; clock: Clock; verifyBaseUrl: string }) {
  const { pool, chain, sender, clock } = deps;
  const sql = pgSql(pool);

  async function finish(journalId: string, receipt: TransactionReceipt | 'dropped' | undefined): Promise<void> {
    if (receipt === undefined) return;
    if (receipt === 'dropped' || receipt.status !== 'success') {
      await inTransaction(pool, async (tx) => {
        if (receipt === 'dropped') await requeueRevocations(tx, journalId);
        else await failRevocations(tx, journalId);
        await recordFailed(tx, journalId, receipt === 'dropped' ? 'replaced' : `transaction ${receipt.transactionHash} reverted`, new Date(clock.now()));
      });
      return;
    }
    const items = await revocationsOf(sql, journalId);
    const at = new Date(clock.now());
    const txHash = receipt.transactionHash;
    await inTransaction(pool, async (tx) => {
      await markRevoked(tx, journalId, txHash, at);
      const claims = items.filter((i) => i.idempotencyKey);
      await completeMany(tx, claims.map((i) => ({ apiKeyId: i.apiKeyId, key: i.idempotencyKey!, status: 200, body: { uid: i.uid, revoked: true, revokedAt: at.toISOString(), txHash } })));
      await recordMined(tx, journalId, { hash: txHash, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed }, at);
      await emitAttestationEvents(tx, 'attestation.revoked', items, deps.verifyBaseUrl, at);
      await appendAuditEntries(
        tx,
        items.map((i) => ({ accountId: i.accountId, at, action: 'attestation.revoked', actorKeyPrefix: i.keyPrefix, resource: `attestation:${i.uid}`, outcome: 'success', ip: null, requestId: null, details: { mode: i.mode, txHash, ...(i.reason ? { reason: i.reason } : {}) } })),
      );
    });
  }

  return {
    finish,

    /** Sends one revocation transaction for the pending revocations of `mode`; returns how many it carried. */
    revokeNext(mode: 'onchain' | 'offchain'): Promise<number> {
      return runRound(
        { pool, sender, clock, to: chain.eas },
        {
          kind: 'revoke',
          claim: (tx, journalId) => claimRevocations(tx, journalId, mode, 100),
          calldata: async (journalId) => revokeCalldata(mode, await revocationsOf(sql, journalId)),
          finish,
          fail: (tx, journalId) => failRevocations(tx, journalId),
        },
      );
    },

  };
}

export type Revoker = ReturnType<typeof createRevoker>;

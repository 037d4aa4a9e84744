import { encodeFunctionData, type TransactionReceipt } from 'viem';
import { appendAuditEntries } from '../audit/log.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, pgSql, type Pool } from '../db/sql.ts';
import { completeMany } from '../idempotency/store.ts';
import type { Chain } from './connect.ts';
import { EAS_ARTIFACT } from './contracts.ts';
import { recordFailed, recordIntent, recordMined } from './journal.ts';
import { claimRevocations, failRevocations, markRevoked, requeueRevocations, revocationsOf, type RevokeItem } from './revoke-store.ts';
import { SCHEMA_UID } from './schema.ts';
import { NotSentError, type Sender } from './sender.ts';

/** The call that revokes these items: `multiRevoke` for on-chain attestations, `multiRevokeOffchain` for off-chain uids. */
export function revokeCalldata(mode: 'onchain' | 'offchain', items: RevokeItem[]): `0x${string}` {
  if (mode === 'offchain') return encodeFunctionData({ abi: EAS_ARTIFACT.abi, functionName: 'multiRevokeOffchain', args: [items.map((i) => i.uid)] });
  return encodeFunctionData({ abi: EAS_ARTIFACT.abi, functionName: 'multiRevoke', args: [[{ schema: SCHEMA_UID, data: items.map((i) => ({ uid: i.uid, value: 0n })) }]] });
}

/** Revocations, relayer side: the same journal and sender as attestations, one transaction per mode and round. */
export function createRevoker(deps: { pool: Pool; chain: Chain; sender: Sender; clock: Clock }) {
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
      await appendAuditEntries(
        tx,
        items.map((i) => ({ accountId: i.accountId, at, action: 'attestation.revoked', actorKeyPrefix: i.keyPrefix, resource: `attestation:${i.uid}`, outcome: 'success', ip: null, requestId: null, details: { mode: i.mode, txHash, ...(i.reason ? { reason: i.reason } : {}) } })),
      );
    });
  }

  return {
    finish,

    /** Sends one revocation transaction for the pending revocations of `mode`; returns how many it carried. */
    async revokeNext(mode: 'onchain' | 'offchain'): Promise<number> {
      const claimed = await inTransaction(pool, async (tx) => {
        const journalId = await recordIntent(tx, 'revoke');
        const count = await claimRevocations(tx, journalId, mode, 100);
        if (count === 0) await tx.query(`DELETE FROM relay_transactions WHERE id = $1::bigint`, [journalId]);
        return { journalId, count };
      });
      if (claimed.count === 0) return 0;
      const items = await revocationsOf(sql, claimed.journalId);
      try {
        await finish(claimed.journalId, await sender.send(claimed.journalId, chain.eas, revokeCalldata(mode, items)));
      } catch (error) {
        if (!(error instanceof NotSentError)) throw error;
        await inTransaction(pool, async (tx) => {
          await failRevocations(tx, claimed.journalId);
          await recordFailed(tx, claimed.journalId, error.message, new Date(clock.now()));
        });
      }
      return claimed.count;
    },

    requeue: (journalId: string) => inTransaction(pool, (tx) => requeueRevocations(tx, journalId)),
  };
}

export type Revoker = ReturnType<typeof createRevoker>;

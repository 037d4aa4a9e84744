import { decodeEventLog, encodeFunctionData, zeroAddress, zeroHash, type Hex, type TransactionReceipt } from 'viem';
import type { AuditFields } from '../audit/chain.ts';
import { appendAuditEntries } from '../audit/log.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, pgSql, type Pool } from '../db/sql.ts';
import { completeMany } from '../idempotency/store.ts';
import type { Logger } from '../log.ts';
import type { Chain } from './connect.ts';
import { EAS_ARTIFACT } from './contracts.ts';
import { batchResponse } from '../attestations/batch.ts';
import { batchItems } from '../attestations/store.ts';
import { recordFailed, recordMined, unfinished } from './journal.ts';
import { runRound } from './round.ts';
import { claimPending, confirmItems, failItems, itemsOf, requeueItems, type RelayItem } from './relay-store.ts';
import { encodeAttestationData, SCHEMA_UID } from './schema.ts';
import type { Sender } from './sender.ts';
import { createRevoker } from './revoker.ts';
import { requeueRevocations } from './revoke-store.ts';
import { batchCompletedEvent, emitAttestationEvents, emitEvents } from '../webhooks/outbox.ts';

export const MAX_ITEMS_PER_TRANSACTION = 100;

/** The call that attests these items: `attest` for one, one `multiAttest` for several. */
export function attestCalldata(items: Array<{ type: string; contentHash: Hex }>): Hex {
  const data = items.map((item) => ({ recipient: zeroAddress, expirationTime: 0n, revocable: true, refUID: zeroHash, data: encodeAttestationData(item.contentHash, item.type as 'human' | 'ai'), value: 0n }));
  if (data.length === 1) return encodeFunctionData({ abi: EAS_ARTIFACT.abi, functionName: 'attest', args: [{ schema: SCHEMA_UID, data: data[0] }] });
  return encodeFunctionData({ abi: EAS_ARTIFACT.abi, functionName: 'multiAttest', args: [[{ schema: SCHEMA_UID, data }]] });
}

/** The uids of the Attested events EAS emitted in a receipt, in log order. */
export function attestedUids(receipt: TransactionReceipt, eas: Hex): Hex[] {
  const uids: Hex[] = [];
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== eas.toLowerCase()) continue;
    try {
      const event = decodeEventLog({ abi: EAS_ARTIFACT.abi, data: log.data, topics: log.topics });
      if (event.eventName === 'Attested') uids.push((event.args as unknown as { uid: Hex }).uid);
    } catch {
      // another event of EAS
    }
  }
  return uids;
}

export type Relayer = ReturnType<typeof createRelayer>;

/**
 * The relay job's work: reconcile what the journal left open, then send every pending on-chain attestation, as
 * many per `multiAttest` as are waiting (up to 100), until none is left. Runs on one graphile-worker queue, so one
 * relayer at a time signs: nonces never race across replicas.
 */
export function createRelayer(deps: { pool: Pool; chain: Chain; sender: Sender; clock: Clock; log: Logger; verifyBaseUrl: string; maxItemsPerTx?: number }) {
  const { pool, chain, sender, clock, log } = deps;
  const revoker = createRevoker(deps);
  const sql = pgSql(pool);

  async function finish(journalId: string, receipt: TransactionReceipt | 'dropped' | undefined): Promise<void> {
    if (receipt === undefined) return; // still not mined: the journal keeps it; the next run resumes it
    if (receipt === 'dropped') {
      await inTransaction(pool, async (tx) => {
        await requeueItems(tx, journalId);
        await recordFailed(tx, journalId, 'replaced: the nonce was used by another transaction', new Date(clock.now()));
      });
      return;
    }
    const items = await itemsOf(sql, journalId);
    const uids = attestedUids(receipt, chain.eas);
    if (receipt.status !== 'success' || uids.length !== items.length) {
      const reason = receipt.status !== 'success' ? `transaction ${receipt.transactionHash} reverted` : `expected ${items.length} Attested events, found ${uids.length}`;
      log.error({ journalId, txHash: receipt.transactionHash }, reason);
      await inTransaction(pool, async (tx) => {
        await failItems(tx, journalId, reason);
        await recordFailed(tx, journalId, reason, new Date(clock.now()));
      });
      return;
    }
    await confirm(journalId, items, uids, receipt);
  }

  async function confirm(journalId: string, items: RelayItem[], uids: Hex[], receipt: TransactionReceipt): Promise<void> {
    const at = new Date(clock.now());
    const txHash = receipt.transactionHash;
    await inTransaction(pool, async (tx) => {
      await confirmItems(tx, items.map((i) => i.id), uids, txHash, receipt.blockNumber);
      const singles = items.map((item, i) => ({ item, uid: uids[i]! })).filter(({ item }) => item.idempotencyKey && !item.batchId);
      await completeMany(tx, singles.map(({ item, uid }) => ({ apiKeyId: item.apiKeyId, key: item.idempotencyKey!, status: 201, body: { uid, txHash, verifyUrl: `${deps.verifyBaseUrl}/${uid}`, mode: 'onchain' } })));
      // a batch is never split across transactions: its on-chain items all complete here
      const batches = new Map(items.filter((item) => item.batchId).map((item) => [item.batchId!, item]));
      const rows = batches.size > 0 ? await batchItems(tx, [...batches.keys()]) : [];
      const keyed = [...batches].filter(([, item]) => item.idempotencyKey);
      await completeMany(tx, keyed.map(([batchId, item]) => ({ apiKeyId: item.apiKeyId, key: item.idempotencyKey!, status: 201, body: batchResponse(batchId, rows.filter((r) => r.batchId === batchId), deps.verifyBaseUrl) })));
      await recordMined(tx, journalId, { hash: txHash, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed }, at);
      await emitAttestationEvents(tx, 'attestation.created', items.map((item, i) => ({ accountId: item.accountId, uid: uids[i]! })), deps.verifyBaseUrl, at);
      await emitEvents(tx, [...batches].map(([batchId, item]) => batchCompletedEvent(item.accountId, batchId, rows.filter((r) => r.batchId === batchId))), at);
      const audit: AuditFields[] = items.map((item, i) => ({
        accountId: item.accountId,
        at,
        action: 'attestation.created',
        actorKeyPrefix: item.keyPrefix,
        resource: `attestation:${uids[i]}`,
        outcome: 'success',
        ip: null,
        requestId: null,
        details: { mode: 'onchain', type: item.type, txHash, ...(item.batchId ? { batchId: item.batchId } : {}) },
      }));
      await appendAuditEntries(tx, audit);
    });
    log.info({ journalId, txHash, items: items.length, gasUsed: receipt.gasUsed.toString() }, 'relayed');
  }

  return {
    /** Finishes what a crash or a stuck transaction left in the journal. */
    async reconcile(): Promise<void> {
      for (const entry of await unfinished(sql)) {
        if (entry.status === 'intent') {
          // nothing was signed: the items go back to the queue
          await inTransaction(pool, async (tx) => {
            await (entry.kind === 'revoke' ? requeueRevocations(tx, entry.id) : requeueItems(tx, entry.id));
            await recordFailed(tx, entry.id, 'abandoned before it was signed', new Date(clock.now()));
          });
          continue;
        }
        const outcome = await sender.resume(entry);
        await (entry.kind === 'revoke' ? revoker.finish(entry.id, outcome) : finish(entry.id, outcome));
      }
    },

    /** Sends the next round: one transaction of pending attestations, then one per kind of pending revocation. */
    async relayNext(): Promise<number> {
      return (await attestNext()) + (await revoker.revokeNext('onchain')) + (await revoker.revokeNext('offchain'));
    },
  };

  /** One transaction's worth of pending attestations (0: none waiting). */
  function attestNext(): Promise<number> {
    return runRound(
      { pool, sender, clock, to: chain.eas, onNotSent: (journalId, reason) => log.warn({ journalId, reason }, 'relay transaction not sent') },
      {
        kind: 'attest',
        claim: (tx, journalId) => claimPending(tx, journalId, deps.maxItemsPerTx ?? MAX_ITEMS_PER_TRANSACTION),
        calldata: async (journalId) => attestCalldata(await itemsOf(sql, journalId)),
        finish,
        fail: (tx, journalId, reason) => failItems(tx, journalId, reason),
      },
    );
  }
}

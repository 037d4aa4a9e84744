import { decodeEventLog, encodeFunctionData, zeroAddress, zeroHash, type Hex, type TransactionReceipt } from 'viem';
import { auditEntry } from '../audit/entry.ts';
import { appendAuditEntries } from '../audit/append.ts';
import { EAS_ARTIFACT } from '../chain/eas-artifacts.ts';
import { lockOpenEntry, recordFailed, recordMined } from '../chain/journal-store.ts';
import type { RoundWork, SendOutcome } from '../chain/round.ts';
import { encodeAttestationData, SCHEMA_UID } from '../chain/schema.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { completeMany } from '../idempotency/store.ts';
import type { Logger } from '../log.ts';
import { emitEvents } from '../webhooks/outbox.ts';
import { batchResponse } from './batch.ts';
import { delegatedCalldataOf, delegatedCreationWork } from './delegated-relay.ts';
import { batchCompletedEvent, emitAttestationEvents, emitReplacedEvents } from './events.ts';
import { recordPromotions, splitPromotions } from './promote-relay.ts';
import { traceRelayed } from './relay-trace.ts';
import {
  claimPending,
  confirmItems,
  failItems,
  itemsOf,
  requeueItems,
  reviveItems,
  type RelayItem,
} from './relay-store.ts';
import { revocationWork } from './revocation/relay-work.ts';
import type { AttestationOrigin } from './states.ts';
import { sourceTypeOf } from './record.ts';
import { batchItems } from './store.ts';

export const MAX_ITEMS_PER_TRANSACTION = 100;

/**
 * Gas of a `multiAttest` of our schema on EAS 1.4, measured on anvil (100 items: 14,835,206 when none is AI-generated,
 * 16,826,418 when all are): 38.3 k for the transaction, 148.0 k per item, 167.9 k when `aiGenerated` is true (a
 * storage word that is not zero), and a refUID another word (its bound is tested against EAS on anvil). Rounded up, it
 * sizes transactions to the relayer's gas target.
 */
export const ATTEST_GAS = { transaction: 40_000n, human: 148_500n, ai: 168_500n, ref: 22_500n } as const;

/** The call that attests these items: `attest` for one, one `multiAttest` for several. */
export function attestCalldata(items: Array<{ type: AttestationOrigin; contentHash: Hex; refUid?: Hex | null }>): Hex {
  const data = items.map((item) => ({
    recipient: zeroAddress,
    expirationTime: 0n,
    revocable: true,
    // EAS reverts the whole call on a refUID it does not hold: only confirmed on-chain origins are staged
    refUID: item.refUid ?? zeroHash,
    data: encodeAttestationData(item.contentHash, item.type),
    value: 0n,
  }));
  if (data.length === 1)
    return encodeFunctionData({
      abi: EAS_ARTIFACT.abi,
      functionName: 'attest',
      args: [{ schema: SCHEMA_UID, data: data[0] }],
    });
  return encodeFunctionData({
    abi: EAS_ARTIFACT.abi,
    functionName: 'multiAttest',
    args: [[{ schema: SCHEMA_UID, data }]],
  });
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

export interface RelayWorkDeps {
  db: Db;
  /** The EAS contract the transactions go to. */
  eas: Hex;
  clock: Clock;
  log: Logger;
  verifyBaseUrl: string;
  maxItemsPerTx?: number | undefined;
}

/**
 * What attestations hand the relayer, in the order a round sends them: creations (the relayer's own, then customers'
 * signed requests), then on-chain and off-chain revocations.
 */
export function attestationRelayWorks(deps: RelayWorkDeps): RoundWork[] {
  const creation = creationWork(deps);
  const delegated = delegatedCreationWork(creation, deps.db, deps.maxItemsPerTx ?? MAX_ITEMS_PER_TRANSACTION);
  return [creation, delegated, revocationWork(deps, 'onchain'), revocationWork(deps, 'offchain')];
}

/**
 * On-chain creation, relayer side: pending attestations, as many per `multiAttest` as are waiting and fit the
 * relayer's gas target (up to maxItemsPerTx). Once mined, in one transaction: each item's uid, the Idempotency-Key responses (single creates and
 * whole batches), `attestation.created` and `batch.completed` events, and the audit entries. Mined again after a
 * reorg took it away: the new uids, the responses updated to them, and `attestation.replaced` where a uid changed.
 */
function creationWork(deps: RelayWorkDeps): RoundWork {
  const { db, clock, log } = deps;

  async function finish(journalId: string, receipt: SendOutcome): Promise<void> {
    if (receipt === 'dropped') {
      await inTransaction(db, async (tx) => {
        if (!(await lockOpenEntry(tx, journalId))) return;
        await requeueItems(tx, journalId);
        await recordFailed(tx, journalId, 'replaced: the nonce was used by another transaction', new Date(clock.now()));
      });
      return;
    }
    const items = await itemsOf(db, journalId);
    const uids = attestedUids(receipt, deps.eas);
    if (receipt.status !== 'success' || uids.length !== items.length) {
      const reason =
        receipt.status !== 'success'
          ? `transaction ${receipt.transactionHash} reverted`
          : `expected ${items.length} Attested events, found ${uids.length}`;
      log.error({ journalId, txHash: receipt.transactionHash }, reason);
      await inTransaction(db, async (tx) => {
        if (!(await lockOpenEntry(tx, journalId))) return;
        await failItems(tx, journalId, reason);
        await recordFailed(tx, journalId, reason, new Date(clock.now()));
      });
      return;
    }
    await confirm(journalId, items, uids, receipt);
  }

  async function confirm(
    journalId: string,
    items: RelayItem[],
    uids: Hex[],
    receipt: TransactionReceipt,
  ): Promise<void> {
    const at = new Date(clock.now());
    const txHash = receipt.transactionHash;
    // items a reorg sent again were announced already: only a changed uid is news
    const fresh = items.flatMap((item, i) => (item.previousUid === null ? [{ ...item, uid: uids[i]! }] : []));
    // a promotion is announced and audited as one, not as a create
    const [promoted, created] = splitPromotions(fresh);
    const replaced = items.flatMap((item, i) => {
      const [uid, previousUid] = [uids[i]!, item.previousUid];
      return previousUid !== null && previousUid.toLowerCase() !== uid.toLowerCase()
        ? [{ ...item, uid, previousUid }]
        : [];
    });
    await inTransaction(db, async (tx) => {
      if (!(await lockOpenEntry(tx, journalId))) return;
      await confirmItems(
        tx,
        items.map((i) => i.id),
        uids,
        txHash,
        receipt.blockNumber,
      );
      const singles = items
        .map((item, i) => ({ item, uid: uids[i]! }))
        .filter(({ item }) => item.idempotencyKey && !item.batchId);
      await completeMany(
        tx,
        singles.map(({ item, uid }) => ({
          apiKeyId: item.apiKeyId,
          key: item.idempotencyKey!,
          status: 201,
          body: {
            uid,
            txHash,
            verifyUrl: `${deps.verifyBaseUrl}/${uid}`,
            mode: 'onchain',
            digitalSourceType: sourceTypeOf(item),
            // the answer the create gave, for a replay of its Idempotency-Key
            ...(item.aiModel === null
              ? {}
              : { ai: { model: item.aiModel, promptHash: item.aiPromptHash, offchain: null } }),
          },
        })),
      );
      // a batch is never split across transactions: its on-chain items all complete here
      const batches = new Map(items.filter((item) => item.batchId).map((item) => [item.batchId!, item]));
      const rows = batches.size > 0 ? await batchItems(tx, [...batches.keys()]) : [];
      const keyed = [...batches].filter(([, item]) => item.idempotencyKey);
      await completeMany(
        tx,
        keyed.map(([batchId, item]) => ({
          apiKeyId: item.apiKeyId,
          key: item.idempotencyKey!,
          status: 201,
          body: batchResponse(
            batchId,
            rows.filter((r) => r.batchId === batchId),
            deps.verifyBaseUrl,
          ),
        })),
      );
      await recordMined(
        tx,
        journalId,
        { hash: txHash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, gasUsed: receipt.gasUsed },
        at,
      );
      await emitAttestationEvents(
        tx,
        'attestation.created',
        created.map((item) => ({ accountId: item.accountId, uid: item.uid })),
        deps.verifyBaseUrl,
        at,
      );
      await recordPromotions(tx, promoted, { txHash, at, verifyBaseUrl: deps.verifyBaseUrl });
      await emitReplacedEvents(tx, replaced, deps.verifyBaseUrl, at);
      await emitEvents(
        tx,
        [...batches]
          .filter(([, item]) => item.previousUid === null)
          .map(([batchId, item]) =>
            batchCompletedEvent(
              item.accountId,
              batchId,
              rows.filter((r) => r.batchId === batchId),
            ),
          ),
        at,
      );
      const details = (item: RelayItem) => ({
        mode: 'onchain',
        type: item.type,
        txHash,
        ...(item.batchId ? { batchId: item.batchId } : {}),
      });
      await appendAuditEntries(tx, [
        ...created.map((item) =>
          auditEntry({
            accountId: item.accountId,
            actorKeyPrefix: item.keyPrefix,
            at,
            action: 'attestation.created',
            resource: `attestation:${item.uid}`,
            details: details(item),
          }),
        ),
        // the relayer acted, not the key: a reorg, not a request, changed the uid
        ...replaced.map((item) =>
          auditEntry({
            accountId: item.accountId,
            at,
            action: 'attestation.replaced',
            resource: `attestation:${item.uid}`,
            details: { ...details(item), previousUid: item.previousUid },
          }),
        ),
      ]);
    });
    log.info({ journalId, txHash, items: items.length, gasUsed: receipt.gasUsed.toString() }, 'relayed');
    const ids = items.map((item) => item.id);
    await traceRelayed(db, {
      journalId,
      txHash,
      blockNumber: receipt.blockNumber,
      gasUsed: receipt.gasUsed,
      ids,
    });
  }

  return {
    kind: 'attest',
    to: deps.eas,
    claim: (tx, gasBudget, open) =>
      claimPending(
        tx,
        {
          items: deps.maxItemsPerTx ?? MAX_ITEMS_PER_TRANSACTION,
          gas: gasBudget,
          baseGas: ATTEST_GAS.transaction,
          gasOf: (type) => ATTEST_GAS[type],
          refGas: ATTEST_GAS.ref,
        },
        open,
      ),
    // a customer's signed requests ride their own transactions (delegated-relay.ts); either kind is 'attest'
    calldata: async (journalId) =>
      (await delegatedCalldataOf(db, journalId)) ?? attestCalldata(await itemsOf(db, journalId)),
    finish,
    fail: (tx, journalId, reason) => failItems(tx, journalId, reason),
    requeue: requeueItems,
    revive: reviveItems,
    onNotSent: (journalId, reason) => log.warn({ journalId, reason }, 'relay transaction not sent'),
  };
}

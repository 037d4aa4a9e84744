import type { Hex, TransactionReceipt } from 'viem';
import { appendAuditEntries } from '../audit/append.ts';
import { auditEntry } from '../audit/entry.ts';
import { lockOpenEntry, recordMined } from '../chain/journal-store.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { completeMany } from '../idempotency/store.ts';
import type { Logger } from '../log.ts';
import { emitEvents } from '../webhooks/outbox.ts';
import { batchResponse } from './batch.ts';
import { batchCompletedEvent, emitAttestationEvents, emitReplacedEvents } from './events.ts';
import { recordPromotions, splitPromotions } from './promote-relay.ts';
import { traceRelayed } from './relay-trace.ts';
import { confirmItems, type RelayItem } from './relay-store.ts';
import { sourceTypeOf } from './record.ts';
import { batchItems, type BatchItemRow } from './store.ts';

/** What confirming a mined transaction of creations uses (relay-work.ts hands it its own deps). */
interface ConfirmDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  verifyBaseUrl: string;
}

type MinedItem = RelayItem & { uid: Hex };

/** What a mined transaction of creations announces, item by item. */
interface ConfirmedChanges {
  /** Mined the first time, promoting an off-chain original: announced and audited as a promotion. */
  promoted: MinedItem[];
  /** Mined the first time, a plain create. */
  created: MinedItem[];
  /** Mined again after a reorg took its first block, under another uid than the one first reported. */
  replaced: Array<MinedItem & { previousUid: string }>;
}

/** One mined transaction of creations, confirmed in one database transaction. */
interface Confirmation {
  journalId: string;
  items: RelayItem[];
  /** The uids EAS gave, in item order. */
  uids: Hex[];
  receipt: TransactionReceipt;
  at: Date;
}

/**
 * Why a mined transaction of creations confirms none of its items: it reverted, or EAS did not emit one Attested
 * event per item. Undefined when it confirms them all.
 */
export function creationFailure(receipt: TransactionReceipt, items: number, uids: number): string | undefined {
  if (receipt.status !== 'success') return `transaction ${receipt.transactionHash} reverted`;
  if (uids !== items) return `expected ${items} Attested events, found ${uids}`;
  return undefined;
}

/** Which items of a mined transaction are promotions, plain creates, or replaced under a new uid (the rest: none). */
export function confirmedChanges(items: RelayItem[], uids: Hex[]): ConfirmedChanges {
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
  return { promoted, created, replaced };
}

/**
 * Confirms the items of a mined transaction, in one database transaction (unless another relayer finished its entry
 * first): their uids, the Idempotency-Key responses (single creates and whole batches), the journal entry, the
 * events and the audit entries. Then the log line and the relay trace.
 */
export async function confirmCreation(
  deps: ConfirmDeps,
  journalId: string,
  items: RelayItem[],
  uids: Hex[],
  receipt: TransactionReceipt,
): Promise<void> {
  const { db, log } = deps;
  const confirmation: Confirmation = { journalId, items, uids, receipt, at: new Date(deps.clock.now()) };
  const txHash = receipt.transactionHash;
  const changes = confirmedChanges(items, uids);
  await inTransaction(db, async (tx) => {
    if (!(await lockOpenEntry(tx, journalId))) return;
    await recordConfirmation(tx, deps.verifyBaseUrl, confirmation, changes);
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

/** The confirming transaction's writes, in their order, once its journal entry is locked open. */
async function recordConfirmation(
  tx: Db,
  verifyBaseUrl: string,
  { journalId, items, uids, receipt, at }: Confirmation,
  { promoted, created, replaced }: ConfirmedChanges,
): Promise<void> {
  const txHash = receipt.transactionHash;
  await confirmItems(
    tx,
    items.map((i) => i.id),
    uids,
    txHash,
    receipt.blockNumber,
  );
  await completeSingles(tx, verifyBaseUrl, items, uids, txHash);
  // a batch is never split across transactions: its on-chain items all complete here
  const batches = new Map(items.filter((item) => item.batchId).map((item) => [item.batchId!, item]));
  const rows = batches.size > 0 ? await batchItems(tx, [...batches.keys()]) : [];
  await completeBatches(tx, verifyBaseUrl, batches, rows);
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
    verifyBaseUrl,
    at,
  );
  await recordPromotions(tx, promoted, { txHash, at, verifyBaseUrl });
  await emitReplacedEvents(tx, replaced, verifyBaseUrl, at);
  await emitBatchesCompleted(tx, batches, rows, at);
  await auditConfirmed(tx, txHash, at, created, replaced);
}

/** The Idempotency-Key responses of single creates (not in a batch): what the create answered, for a replay. */
async function completeSingles(
  tx: Db,
  verifyBaseUrl: string,
  items: RelayItem[],
  uids: Hex[],
  txHash: Hex,
): Promise<void> {
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
        verifyUrl: `${verifyBaseUrl}/${uid}`,
        mode: 'onchain',
        digitalSourceType: sourceTypeOf(item),
        // the answer the create gave, for a replay of its Idempotency-Key
        ...(item.aiModel === null
          ? {}
          : { ai: { model: item.aiModel, promptHash: item.aiPromptHash, offchain: null } }),
      },
    })),
  );
}

/** The Idempotency-Key responses of whole batches (by one of their items): the batch's answer, every item in it. */
async function completeBatches(
  tx: Db,
  verifyBaseUrl: string,
  batches: Map<string, RelayItem>,
  rows: BatchItemRow[],
): Promise<void> {
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
        verifyBaseUrl,
      ),
    })),
  );
}

/** `batch.completed` for the batches mined the first time (one mined again after a reorg was announced already). */
async function emitBatchesCompleted(
  tx: Db,
  batches: Map<string, RelayItem>,
  rows: BatchItemRow[],
  at: Date,
): Promise<void> {
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
}

/** The audit entries of the plain creates (by their key) and of the uids a reorg changed (by the relayer). */
async function auditConfirmed(
  tx: Db,
  txHash: Hex,
  at: Date,
  created: ConfirmedChanges['created'],
  replaced: ConfirmedChanges['replaced'],
): Promise<void> {
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
}

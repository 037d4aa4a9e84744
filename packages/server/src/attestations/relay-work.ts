import { decodeEventLog, encodeFunctionData, zeroAddress, zeroHash, type Hex, type TransactionReceipt } from 'viem';
import { EAS_ARTIFACT } from '../chain/eas-artifacts.ts';
import { lockOpenEntry, recordFailed } from '../chain/journal-store.ts';
import type { RoundWork, SendOutcome } from '../chain/round.ts';
import { encodeAttestationData, SCHEMA_UID } from '@attestation-service/protocol';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import type { Logger } from '../log.ts';
import { delegatedCalldataOf, delegatedCreationWork } from './delegated-relay.ts';
import { confirmCreation, creationFailure } from './relay-confirm.ts';
import { claimPending, failItems, itemsOf, requeueItems, reviveItems } from './relay-store.ts';
import { revocationWork } from './revocation/relay-work.ts';
import type { AttestationOrigin } from './states.ts';

const MAX_ITEMS_PER_TRANSACTION = 100;

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

interface RelayWorkDeps {
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
 * The outcome of a transaction of creations: its nonce taken by another (its items go back to the queue), mined but
 * not confirming them (reverted, or not one Attested event per item: they fail), or mined (relay-confirm.ts).
 */
async function finishCreation(deps: RelayWorkDeps, journalId: string, receipt: SendOutcome): Promise<void> {
  const { db, clock, log } = deps;
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
  const reason = creationFailure(receipt, items.length, uids.length);
  if (reason !== undefined) {
    log.error({ journalId, txHash: receipt.transactionHash }, reason);
    await inTransaction(db, async (tx) => {
      if (!(await lockOpenEntry(tx, journalId))) return;
      await failItems(tx, journalId, reason);
      await recordFailed(tx, journalId, reason, new Date(clock.now()));
    });
    return;
  }
  await confirmCreation(deps, journalId, items, uids, receipt);
}

/**
 * On-chain creation, relayer side: pending attestations, as many per `multiAttest` as are waiting and fit the
 * relayer's gas target (up to maxItemsPerTx). Once mined, in one transaction: each item's uid, the Idempotency-Key responses (single creates and
 * whole batches), `attestation.created` and `batch.completed` events, and the audit entries. Mined again after a
 * reorg took it away: the new uids, the responses updated to them, and `attestation.replaced` where a uid changed.
 */
function creationWork(deps: RelayWorkDeps): RoundWork {
  const { db, log } = deps;

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
    finish: (journalId, outcome) => finishCreation(deps, journalId, outcome),
    fail: (tx, journalId, reason) => failItems(tx, journalId, reason),
    requeue: requeueItems,
    revive: reviveItems,
    onNotSent: (journalId, reason) => log.warn({ journalId, reason }, 'relay transaction not sent'),
  };
}

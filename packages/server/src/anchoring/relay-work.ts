import { decodeEventLog, encodeFunctionData, type Hex, type TransactionReceipt } from 'viem';
import { EAS_ARTIFACT } from '../chain/eas-artifacts.ts';
import { lockOpenEntry, recordFailed, recordMined } from '../chain/journal-store.ts';
import type { RoundWork, SendOutcome } from '../chain/round.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import type { Logger } from '../log.ts';
import { confirmAnchor } from './confirm.ts';
import { anchorOf, claimAnchor, offerAgain, unmarkMined, type Timestamped } from './store.ts';

/**
 * Gas of `EAS.timestamp(root)` as the relayer sizes transactions by it: 45.9 k measured on anvil (bench/anchoring.ts),
 * rounded up. One transaction per anchor, whatever its number of attestations.
 */
const ANCHOR_GAS = 50_000n;

/** The call that timestamps a root. */
export function timestampCalldata(root: Hex): Hex {
  return encodeFunctionData({ abi: EAS_ARTIFACT.abi, functionName: 'timestamp', args: [root] });
}

/** Where a receipt shows the EAS contract timestamping `root`, if it does. */
function timestampedIn(receipt: TransactionReceipt, eas: Hex, root: Hex): Timestamped | undefined {
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== eas.toLowerCase()) continue;
    try {
      const event = decodeEventLog({ abi: EAS_ARTIFACT.abi, data: log.data, topics: log.topics });
      const args = event.args as unknown as { data?: Hex; timestamp?: bigint };
      if (event.eventName === 'Timestamped' && args.data?.toLowerCase() === root.toLowerCase())
        return {
          txHash: receipt.transactionHash,
          blockNumber: receipt.blockNumber,
          timestamp: new Date(Number(args.timestamp) * 1000),
        };
    } catch {
      // another event of EAS
    }
  }
  return undefined;
}

interface AnchorWorkDeps {
  db: Db;
  /** The EAS contract whose `timestamp` is called. */
  eas: Hex;
  clock: Clock;
  log: Logger;
}

/**
 * Anchoring, relayer side: the oldest anchor waiting, as one `EAS.timestamp(root)` transaction, journaled and
 * reconciled like any relay transaction. Mined: the anchor, its events and audit entries in one transaction
 * (confirm.ts). Replaced by another transaction at its nonce, or never signed: waiting again at once. Not sent, or
 * reverted: left with its failed journal entry, which the anchor task offers again at its next run (a chain that is
 * down is not asked again and again meanwhile). Taken off the chain by a reorg: unmined until it is mined again, then
 * announced again with its new block and time.
 */
export function anchorWork(deps: AnchorWorkDeps): RoundWork {
  const { db, clock, log } = deps;

  async function finish(journalId: string, outcome: SendOutcome): Promise<void> {
    const now = new Date(clock.now());
    if (outcome === 'dropped') {
      await inTransaction(db, async (tx) => {
        if (!(await lockOpenEntry(tx, journalId))) return;
        await offerAgain(tx, { journalId });
        await recordFailed(tx, journalId, 'replaced: the nonce was used by another transaction', now);
      });
      return;
    }
    const anchor = await anchorOf(db, journalId);
    const at = anchor && outcome.status === 'success' ? timestampedIn(outcome, deps.eas, anchor.root) : undefined;
    if (!anchor || !at) {
      const reason = `transaction ${outcome.transactionHash} did not timestamp the root`;
      log.error({ journalId, txHash: outcome.transactionHash, status: outcome.status }, reason);
      await inTransaction(db, async (tx) => {
        if (await lockOpenEntry(tx, journalId)) await recordFailed(tx, journalId, reason, now);
      });
      return;
    }
    await inTransaction(db, async (tx) => {
      if (!(await lockOpenEntry(tx, journalId))) return;
      await confirmAnchor(tx, anchor, at, now);
      const mined = {
        hash: at.txHash,
        blockNumber: at.blockNumber,
        blockHash: outcome.blockHash,
        gasUsed: outcome.gasUsed,
      };
      await recordMined(tx, journalId, mined, now);
    });
    log.info(
      {
        journalId,
        root: anchor.root,
        attestations: anchor.leafCount,
        txHash: at.txHash,
        gasUsed: String(outcome.gasUsed),
      },
      'anchored',
    );
  }

  return {
    kind: 'anchor',
    to: deps.eas,
    claim: (tx, gasBudget, open) =>
      gasBudget !== undefined && gasBudget < ANCHOR_GAS
        ? Promise.resolve(undefined)
        : claimAnchor(tx, () => open(ANCHOR_GAS)),
    calldata: async (journalId) => {
      const anchor = await anchorOf(db, journalId);
      if (!anchor) throw new Error(`journal entry ${journalId} carries no anchor`);
      return timestampCalldata(anchor.root);
    },
    finish,
    // nothing reached the chain: the anchor keeps the failed entry until the anchor task offers it again
    fail: async () => undefined,
    requeue: (tx, journalId) => offerAgain(tx, { journalId }),
    revive: unmarkMined,
    onNotSent: (journalId, reason) => log.warn({ journalId, reason }, 'anchor transaction not sent'),
  };
}

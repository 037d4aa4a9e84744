import type { Hex, TransactionReceipt } from 'viem';
import type { Sql } from '../db/sql.ts';
import type { RelayKind } from './journal.ts';

/** What became of a sent transaction: its receipt, or 'dropped' (its nonce went to another transaction). */
export type SendOutcome = TransactionReceipt | 'dropped';

/**
 * One kind of relay work (attest, revoke) as a feature hands it to the relayer: the feature decides which items a
 * transaction carries and what its outcome means for them; the relayer journals, signs, sends and reconciles.
 */
export interface RoundWork {
  kind: RelayKind;
  /** The contract the transaction calls. */
  to: Hex;
  /** The gas one item adds to a transaction (measured): with the gas target, how many items one carries. */
  gasPerItem: bigint;
  /** The most items one transaction carries, whatever the gas target. */
  maxItems: number;
  /**
   * Ties up to `max` pending items (oldest first, never splitting a batch) to a journal entry that `open` makes
   * only when some are waiting; returns the entry and how many it carries, or undefined when none wait.
   */
  claim(tx: Sql, max: number, open: () => Promise<string>): Promise<{ journalId: string; count: number } | undefined>;
  /** The transaction's calldata for the claimed items. */
  calldata(journalId: string): Promise<Hex>;
  /** Records the outcome of a transaction that left the mempool, closing the journal entry with it. */
  finish(journalId: string, outcome: SendOutcome): Promise<void>;
  /** Fails the claimed items when nothing reached the chain. */
  fail(tx: Sql, journalId: string, reason: string): Promise<void>;
  /** Puts the items of an entry that was never signed back in the queue. */
  requeue(tx: Sql, journalId: string): Promise<void>;
  /** Told when a transaction could not be sent at all (its items then fail). */
  onNotSent?(journalId: string, reason: string): void;
}

/** How many items of `work` one transaction carries under `gasTarget` (its gas limit keeps a 2% margin). */
export function itemsUnder(work: RoundWork, gasTarget: bigint): number {
  const byGas = Number((gasTarget * 100n) / 102n / work.gasPerItem);
  return Math.max(1, Math.min(work.maxItems, byGas));
}

import type { Hex, TransactionReceipt } from 'viem';
import type { Db } from '../db/database.ts';
import type { RelayKind } from './journal-store.ts';

/** What became of a sent transaction: its receipt, or 'dropped' (its nonce went to another transaction). */
export type SendOutcome = TransactionReceipt | 'dropped';

/**
 * One kind of relay work (attest, revoke) as a feature hands it to the relayer: the feature decides which items a
 * transaction carries and what its outcome means for them; the relayer journals, signs, sends and reconciles.
 */
export interface RoundWork {
  kind: RelayKind;
  to: Hex;
  /**
   * Ties pending items (oldest first, never splitting a batch) to a journal entry that `open` makes, told the
   * transaction's estimated gas, when some are waiting: as many as the work allows in one transaction whose
   * estimated gas stays within `gasBudget` (undefined: no gas bound). `open` may decline (undefined: the items wait
   * for a later round). Returns the entry and how many items it carries, or undefined when none were tied.
   */
  claim(
    tx: Db,
    gasBudget: bigint | undefined,
    open: (estimatedGas: bigint) => Promise<string | undefined>,
  ): Promise<{ journalId: string; count: number } | undefined>;
  calldata(journalId: string): Promise<Hex>;
  /** Records the outcome of a transaction that left the mempool, closing the journal entry with it. */
  finish(journalId: string, outcome: SendOutcome): Promise<void>;
  /** Fails the claimed items when nothing reached the chain. */
  fail(tx: Db, journalId: string, reason: string): Promise<void>;
  /** Puts the items of an entry that was never signed back in the queue. */
  requeue(tx: Db, journalId: string): Promise<void>;
  /**
   * The block of a transaction already finished as mined left the chain (a reorg): its items wait for it again
   * (pending, still tied to the entry), and `finish` is called again once it is mined anew.
   */
  revive(tx: Db, journalId: string): Promise<void>;
  /** Told when a transaction could not be sent at all (its items then fail). */
  onNotSent?(journalId: string, reason: string): void;
}

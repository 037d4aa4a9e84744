import type { Hex, TransactionReceipt } from 'viem';
import type { Clock } from '../clock.ts';
import { inTransaction, type Pool, type Sql } from '../db/sql.ts';
import { discardIntent, recordFailed, recordIntent, type RelayKind } from './journal.ts';
import { NotSentError, type Sender } from './sender.ts';

/** What became of a sent transaction: its receipt, 'dropped' (its nonce went to another one), or not mined yet. */
export type SendOutcome = TransactionReceipt | 'dropped' | undefined;

/**
 * One kind of relay work (attest, revoke) as a feature hands it to the relayer: the feature decides which items a
 * transaction carries and what its outcome means for them; the relayer journals, signs, sends and reconciles.
 */
export interface RoundWork {
  kind: RelayKind;
  /** The contract the transaction calls. */
  to: Hex;
  /** Ties pending items to the new journal entry; returns how many. */
  claim(tx: Sql, journalId: string): Promise<number>;
  /** The transaction's calldata for the claimed items. */
  calldata(journalId: string): Promise<Hex>;
  /** Records the outcome once a receipt (or none yet) is known, closing the journal entry with it. */
  finish(journalId: string, outcome: SendOutcome): Promise<void>;
  /** Fails the claimed items when nothing reached the chain. */
  fail(tx: Sql, journalId: string, reason: string): Promise<void>;
  /** Puts the items of an entry that was never signed back in the queue. */
  requeue(tx: Sql, journalId: string): Promise<void>;
  /** Told when a transaction could not be sent at all (its items then fail). */
  onNotSent?(journalId: string, reason: string): void;
}

/**
 * One relay round: open a journal entry and claim its items in one transaction, send one transaction to `work.to`,
 * and finish; a send that never reached the chain fails its items. Returns how many items it carried (0: none waiting).
 */
export async function runRound(deps: { pool: Pool; sender: Sender; clock: Clock }, work: RoundWork): Promise<number> {
  const claimed = await inTransaction(deps.pool, async (tx) => {
    const journalId = await recordIntent(tx, work.kind);
    const count = await work.claim(tx, journalId);
    if (count === 0) await discardIntent(tx, journalId);
    return { journalId, count };
  });
  if (claimed.count === 0) return 0;
  try {
    await work.finish(
      claimed.journalId,
      await deps.sender.send(claimed.journalId, work.to, await work.calldata(claimed.journalId)),
    );
  } catch (error) {
    if (!(error instanceof NotSentError)) throw error;
    work.onNotSent?.(claimed.journalId, error.message);
    await inTransaction(deps.pool, async (tx) => {
      await work.fail(tx, claimed.journalId, error.message);
      await recordFailed(tx, claimed.journalId, error.message, new Date(deps.clock.now()));
    });
  }
  return claimed.count;
}

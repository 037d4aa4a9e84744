import type { Hex, TransactionReceipt } from 'viem';
import type { Clock } from '../clock.ts';
import { inTransaction, type Pool, type Sql } from '../db/sql.ts';
import { recordFailed, recordIntent, type JournalEntry } from './journal.ts';
import { NotSentError, type Sender } from './sender.ts';

/** What one kind of relay work (attest, revoke) supplies to a round. */
export interface RoundWork {
  kind: JournalEntry['kind'];
  /** Ties pending items to the new journal entry; returns how many. */
  claim(tx: Sql, journalId: string): Promise<number>;
  /** The transaction's calldata for the claimed items. */
  calldata(journalId: string): Promise<Hex>;
  /** Records the outcome once a receipt (or none yet) is known. */
  finish(journalId: string, receipt: TransactionReceipt | 'dropped' | undefined): Promise<void>;
  /** Fails the claimed items when nothing reached the chain. */
  fail(tx: Sql, journalId: string, reason: string): Promise<void>;
}

/**
 * One relay round: open a journal entry and claim its items in one transaction, send one transaction to `to`, and
 * finish; a send that never reached the chain fails its items. Returns how many items it carried (0: none waiting).
 */
export async function runRound(deps: { pool: Pool; sender: Sender; clock: Clock; to: Hex; onNotSent?: (journalId: string, reason: string) => void }, work: RoundWork): Promise<number> {
  const claimed = await inTransaction(deps.pool, async (tx) => {
    const journalId = await recordIntent(tx, work.kind);
    const count = await work.claim(tx, journalId);
    if (count === 0) await tx.query(`DELETE FROM relay_transactions WHERE id = $1::bigint`, [journalId]);
    return { journalId, count };
  });
  if (claimed.count === 0) return 0;
  try {
    await work.finish(claimed.journalId, await deps.sender.send(claimed.journalId, deps.to, await work.calldata(claimed.journalId)));
  } catch (error) {
    if (!(error instanceof NotSentError)) throw error;
    deps.onNotSent?.(claimed.journalId, error.message);
    await inTransaction(deps.pool, async (tx) => {
      await work.fail(tx, claimed.journalId, error.message);
      await recordFailed(tx, claimed.journalId, error.message, new Date(deps.clock.now()));
    });
  }
  return claimed.count;
}

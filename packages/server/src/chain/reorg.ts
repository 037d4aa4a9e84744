import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import type { Logger } from '../log.ts';
import {
  lockOpenEntry,
  minedSince,
  recordFailed,
  recordFailedBlock,
  recordReorged,
  type JournalEntry,
  type RelayKind,
} from './journal-store.ts';
import type { RoundWork } from './round.ts';
import type { Watch } from './watch.ts';

/**
 * How long a mined transaction is watched for a reorg that takes its block away: 64 blocks (two epochs, after which
 * Ethereum finalizes a block) or 15 minutes, whichever ends first (a chain that mines only on demand stops there).
 */
const REORG_WATCH_BLOCKS = 64n;
const REORG_WATCH_MS = 15 * 60_000;
/** How often the relayer looks while it works. */
export const REORG_CHECK_MS = 1_000;
/** When nothing else waits but transactions are still watched, the relay job runs again this much later. */
export const REORG_RECHECK_SECONDS = 5;

/**
 * A journal entry taken back from the chain: signed, so in flight again. `filler`: it had failed on chain (reverted),
 * its items failed with it; it goes out again only so that its nonce is used, and this work records its outcome.
 */
type RevivedEntry = JournalEntry & {
  nonce: number;
  rawTx: NonNullable<JournalEntry['rawTx']>;
  filler?: RoundWork;
};

/** The work of a reverted transaction sent again to keep its nonce: its items stay failed; the journal keeps its block. */
function nonceFiller(work: RoundWork, db: Db, clock: Clock): RoundWork {
  return {
    ...work,
    async finish(journalId, outcome) {
      await inTransaction(db, async (tx) => {
        if (!(await lockOpenEntry(tx, journalId))) return;
        await recordFailed(tx, journalId, 'sent again after a reorg, only to use its nonce', new Date(clock.now()));
        if (outcome !== 'dropped') await recordFailedBlock(tx, journalId, outcome);
      });
    },
  };
}

/**
 * The relayer's watch over what it already reported mined: a transaction whose block left the chain (a reorg deeper
 * than CONFIRMATIONS) gets its items put back by its work (`revive`) and is in flight again, its signed bytes sent
 * anew. The same bytes keep its nonce, so the transactions after it stay valid; mined again, it is finished again.
 */
export function createReorgGuard(deps: {
  db: Db;
  watch: Watch;
  clock: Clock;
  log: Logger;
  workOf(kind: RelayKind): RoundWork;
}) {
  const { db, watch, clock, log } = deps;

  async function watched() {
    const head = await watch.head();
    const from = head >= REORG_WATCH_BLOCKS ? head - REORG_WATCH_BLOCKS + 1n : 0n;
    return { head, mined: await minedSince(db, from, new Date(clock.now() - REORG_WATCH_MS)) };
  }

  return {
    /** Entries whose block left the chain, revived (their items pending again, the entry `sent`), oldest nonce first. */
    async revive(): Promise<RevivedEntry[]> {
      const { head, mined } = await watched();
      if (mined.length === 0) return [];
      const vanished = await watch.vanished(mined, head);
      // one node's view is not the chain's (another endpoint behind, or on a fork): the receipt must agree
      const gone: typeof vanished = [];
      for (const entry of vanished)
        if ((await watch.blockOf(entry.txHash))?.toLowerCase() !== entry.blockHash.toLowerCase()) gone.push(entry);
      const revived: RevivedEntry[] = [];
      for (const entry of gone) {
        const back = await inTransaction(db, async (tx) => {
          const row = await recordReorged(tx, entry.id, new Date(clock.now()));
          if (row && entry.status === 'mined') await deps.workOf(entry.kind).revive(tx, entry.id);
          return row;
        });
        if (!back || back.nonce === null || !back.rawTx) continue;
        log.warn(
          { journalId: entry.id, nonce: back.nonce, blockNumber: String(entry.blockNumber) },
          'reorg: a mined transaction left the chain; sent again',
        );
        const filler = entry.status === 'failed' ? nonceFiller(deps.workOf(entry.kind), db, clock) : undefined;
        revived.push({ ...back, nonce: back.nonce, rawTx: back.rawTx, ...(filler ? { filler } : {}) });
      }
      return revived.sort((a, b) => a.nonce - b.nonce);
    },

    /** Whether any mined transaction is still watched (the relay job then comes back to look). */
    async watching(): Promise<boolean> {
      return (await watched()).mined.length > 0;
    },
  };
}

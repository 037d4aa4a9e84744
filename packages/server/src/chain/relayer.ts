import type { Clock } from '../clock.ts';
import { inTransaction, pgSql, type Pool } from '../db/sql.ts';
import { recordFailed, unfinished, type RelayKind } from './journal.ts';
import { runRound, type RoundWork } from './round.ts';
import type { Sender } from './sender.ts';

export type Relayer = ReturnType<typeof createRelayer>;

/**
 * The relay job's work: reconcile what the journal left open, then run a round of each kind of work (in the order
 * given) until none is left. Runs on one graphile-worker queue, so one relayer at a time signs: nonces never race
 * across replicas. Works of one kind share their finish and requeue (the journal records the kind, not the work).
 */
export function createRelayer(deps: { pool: Pool; sender: Sender; clock: Clock; works: RoundWork[] }) {
  const { pool, sender, clock, works } = deps;
  const sql = pgSql(pool);

  function workOf(kind: RelayKind): RoundWork {
    const work = works.find((w) => w.kind === kind);
    if (!work) throw new Error(`no relay work of kind ${kind}`);
    return work;
  }

  return {
    /** Finishes what a crash or a stuck transaction left in the journal. */
    async reconcile(): Promise<void> {
      for (const entry of await unfinished(sql)) {
        const work = workOf(entry.kind);
        if (entry.status === 'intent') {
          // nothing was signed: the items go back to the queue
          await inTransaction(pool, async (tx) => {
            await work.requeue(tx, entry.id);
            await recordFailed(tx, entry.id, 'abandoned before it was signed', new Date(clock.now()));
          });
          continue;
        }
        await work.finish(entry.id, await sender.resume(entry));
      }
    },

    /** Sends the next round: one transaction per kind of work that has items waiting; returns how many it carried. */
    async relayNext(): Promise<number> {
      let carried = 0;
      for (const work of works) carried += await runRound({ pool, sender, clock }, work);
      return carried;
    },
  };
}

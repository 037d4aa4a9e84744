import type { Task } from 'graphile-worker';
import type { Sql } from '../db/sql.ts';
import type { Relayer } from './relayer.ts';

export const RELAY_TASK = 'relay';
/** One named queue: graphile-worker runs its jobs one at a time across every worker, so one signer sends. */
export const RELAY_QUEUE = 'relayer';

/** Asks for a relay run, in the caller's transaction. While one is queued, asking again adds nothing. */
export async function enqueueRelay(sql: Sql): Promise<void> {
  await sql.query(`SELECT graphile_worker.add_job($1, '{}'::json, queue_name => $2, job_key => $1, max_attempts => 100)`, [RELAY_TASK, RELAY_QUEUE]);
}

/** The relay job: reconcile the journal, then send until nothing is pending. Thin: the state lives in our tables. */
export function relayTask(relayer: Relayer): Task {
  return async () => {
    await relayer.reconcile();
    while ((await relayer.relayNext()) > 0) {
      // each round sends one transaction with everything that arrived meanwhile
    }
  };
}

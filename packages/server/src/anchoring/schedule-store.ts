import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

export const ANCHOR_TASK = 'anchor';

/**
 * Asks for an anchor run in `delayMs` (on the database's clock, where jobs run). One job at most waits (its job
 * key): `keep` leaves a waiting one's time as it is (a worker starting), otherwise its time moves (the next run).
 */
export async function scheduleAnchor(db: Db, delayMs: number, mode: 'keep' | 'move' = 'move'): Promise<void> {
  const keyMode = mode === 'keep' ? 'preserve_run_at' : 'replace';
  await sql`SELECT graphile_worker.add_job(${ANCHOR_TASK}, '{}'::json,
    run_at => now() + make_interval(secs => ${delayMs / 1000}), job_key => ${ANCHOR_TASK}, job_key_mode => ${keyMode},
    max_attempts => 1)`.execute(db);
}

/**
 * Makes sure a run is coming, in case the worker that held the last one died with it (graphile-worker keeps a dead
 * worker's job locked for hours): adds one in `delayMs` when no job waits. A run it adds while another is under way
 * finds the lock taken and ends.
 */
export async function ensureAnchorScheduled(db: Db, delayMs: number): Promise<void> {
  await sql`SELECT graphile_worker.add_job(${ANCHOR_TASK}, '{}'::json,
    run_at => now() + make_interval(secs => ${delayMs / 1000}), job_key => ${ANCHOR_TASK},
    job_key_mode => 'preserve_run_at', max_attempts => 1)
    WHERE NOT EXISTS (SELECT 1 FROM graphile_worker.jobs
      WHERE task_identifier = ${ANCHOR_TASK} AND locked_at IS NULL AND attempts < max_attempts)`.execute(db);
}

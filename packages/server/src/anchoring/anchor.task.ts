import type { Task } from 'graphile-worker';
import { pgSql, type Pool, type Sql } from '../db/sql.ts';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { tracer } from '../tracing/tracing.ts';
import type { Anchorer } from './anchorer.ts';

export const ANCHOR_TASK = 'anchor';

/**
 * Asks for an anchor run in `delayMs` (on the database's clock, where jobs run). One job at most waits (its job
 * key): `keep` leaves a waiting one's time as it is (a worker starting), otherwise its time moves (the next run).
 */
export async function scheduleAnchor(sql: Sql, delayMs: number, mode: 'keep' | 'move' = 'move'): Promise<void> {
  await sql.query(
    `SELECT graphile_worker.add_job($1, '{}'::json, run_at => now() + make_interval(secs => $2), job_key => $1,
       job_key_mode => $3, max_attempts => 1)`,
    [ANCHOR_TASK, delayMs / 1000, mode === 'keep' ? 'preserve_run_at' : 'replace'],
  );
}

/**
 * Makes sure a run is coming, in case the worker that held the last one died with it (graphile-worker keeps a dead
 * worker's job locked for hours): adds one in `delayMs` when no job waits. A run it adds while another is under way
 * finds the lock taken and ends.
 */
export async function ensureAnchorScheduled(sql: Sql, delayMs: number): Promise<void> {
  await sql.query(
    `SELECT graphile_worker.add_job($1, '{}'::json, run_at => now() + make_interval(secs => $2), job_key => $1,
       job_key_mode => 'preserve_run_at', max_attempts => 1)
     WHERE NOT EXISTS (SELECT 1 FROM graphile_worker.jobs
       WHERE task_identifier = $1 AND locked_at IS NULL AND attempts < max_attempts)`,
    [ANCHOR_TASK, delayMs / 1000],
  );
}

/**
 * The anchor job: one run (one at a time: the anchorer's lock), then the next run scheduled an interval later,
 * whatever the run did. A job that finds another run under way ends: that one schedules the next.
 */
export function anchorTask(anchorer: Anchorer, pool: Pool, intervalMs: number, log: Logger): Task {
  return async (_payload, helpers) => {
    // a run is a trace of its own (docs/operations.md, "Tracing")
    const traced = () =>
      tracer().span(
        'anchor run',
        async (span) => {
          const run = await anchorer.run(helpers.abortSignal);
          span.set(run.busy ? { 'anchor.busy': true } : { 'anchor.leaves': run.anchor?.leafCount ?? 0 });
          return run;
        },
        { root: true },
      );
    const run = await traced().catch((error: unknown) => {
      if (helpers.abortSignal.aborted) log.info('anchor run stopped with the worker: the next run takes it up');
      else log.error({ error: describeError(error) }, 'anchor run failed');
      return undefined;
    });
    if (run?.busy) return;
    await scheduleAnchor(pgSql(pool), intervalMs).catch((error: unknown) =>
      log.error({ error: describeError(error) }, 'could not schedule the next anchor run'),
    );
  };
}

import type { Task } from 'graphile-worker';
import type { Db } from '../db/database.ts';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { tracer } from '../tracing/tracing.ts';
import type { Anchorer } from './anchorer.ts';
import { scheduleAnchor } from './schedule-store.ts';

/**
 * The anchor job: one run (one at a time: the anchorer's lock), then the next run scheduled an interval later,
 * whatever the run did. A job that finds another run under way ends: that one schedules the next.
 */
export function anchorTask(anchorer: Anchorer, db: Db, intervalMs: number, log: Logger): Task {
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
    await scheduleAnchor(db, intervalMs).catch((error: unknown) =>
      log.error({ error: describeError(error) }, 'could not schedule the next anchor run'),
    );
  };
}

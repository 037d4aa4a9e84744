import { AppError, describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { tracer, type ActiveSpan } from '../tracing/tracing.ts';
import { isDatabaseUnavailable } from './sql.ts';

interface BatchOptions {
  maxBatch?: number;
  maxInFlight?: number;
  /** Names the batch in the log line of a failed group. */
  name?: string;
  /** Where a failed group is reported (once per group, type and code only). */
  log?: Pick<Logger, 'warn'>;
}

interface Pending<In, Out> {
  input: In;
  resolve: (out: Out) => void;
  reject: (error: unknown) => void;
  /** Set once the member's group failed: from then on it runs in a group of its own. */
  alone?: boolean;
  /** With tracing on, the member's span: its wait for the group and the group's run. */
  span?: ActiveSpan;
}

/**
 * A failure that is nobody's fault in particular: the database did not answer (db/sql.ts), or a 503 of ours. Every
 * member would get it again, so retrying them one by one would only multiply the wait.
 */
export function isOutage(error: unknown): boolean {
  return isDatabaseUnavailable(error) || (error instanceof AppError && error.status === 503);
}

/**
 * Collects calls and serves them with one call of `run`: whatever arrives in the same turn of the event loop, and,
 * once `maxInFlight` runs are under way, whatever arrives until one of them finishes (group commit). Here each
 * database round trip costs system calls that dominate a request's CPU, so fifty concurrent reads of one kind
 * become one query (see docs/decisions.md, "Batching").
 *
 * One member never fails another: when a run of several fails (and the database is not simply down, see
 * isOutage), each member is run again alone, so only the member at fault gets the error. `run` must therefore
 * leave nothing behind when it throws (one statement, or one transaction).
 */
export function batched<In, Out>(
  run: (inputs: In[]) => Promise<Out[]>,
  opts: BatchOptions = {},
): (input: In) => Promise<Out> {
  const maxBatch = opts.maxBatch ?? 200;
  const maxInFlight = opts.maxInFlight ?? Number.POSITIVE_INFINITY;
  let queue: Array<Pending<In, Out>> = [];
  let scheduled = false;
  let inFlight = 0;

  /** The next group: a member whose group failed goes alone; others go together, up to maxBatch. */
  const nextGroup = (): Array<Pending<In, Out>> => {
    if (queue[0]!.alone) return queue.splice(0, 1);
    const end = queue.findIndex((item, i) => i >= maxBatch || item.alone);
    return queue.splice(0, end === -1 ? queue.length : end);
  };

  const settle = (group: Array<Pending<In, Out>>, error: unknown) => {
    if (group.length === 1 || isOutage(error)) return group.forEach((item) => item.reject(error));
    const fields = { batch: opts.name, size: group.length, error: describeError(error) };
    opts.log?.warn(fields, 'batched run failed; retrying its members one by one');
    for (const item of group) item.alone = true;
    queue = [...group, ...queue]; // ahead of newcomers, in their order
  };

  const flush = () => {
    scheduled = false;
    while (queue.length > 0 && inFlight < maxInFlight) {
      const group = nextGroup();
      inFlight++;
      for (const item of group) item.span?.set({ 'db.batch.size': group.length });
      // the group's queries serve every member: none of their traces is theirs (each member's span stands for it)
      tracer()
        .detached(() => run(group.map((item) => item.input)))
        .then(
          (outs) => group.forEach((item, i) => item.resolve(outs[i]!)),
          (error: unknown) => settle(group, error),
        )
        .finally(() => {
          inFlight--;
          if (queue.length > 0 && !scheduled) schedule();
        });
    }
  };
  const schedule = () => {
    scheduled = true;
    setImmediate(flush);
  };

  const enqueue = (input: In, span?: ActiveSpan) =>
    new Promise<Out>((resolve, reject) => {
      queue.push({ input, resolve, reject, ...(span && { span }) });
      if (!scheduled) schedule();
    });
  const spanName = `group commit: ${opts.name ?? 'batch'}`;
  // a member's span only inside its caller's (a request's, a job's): a background loop's wait is no trace
  return (input) => (tracer().traceparent() ? tracer().span(spanName, (span) => enqueue(input, span)) : enqueue(input));
}

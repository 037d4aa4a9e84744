import { Logger as WorkerLogger, run, type Runner, type TaskList } from 'graphile-worker';
import type { Logger } from './log.ts';
import { createPool, type DatabaseTimeouts } from './db/sql.ts';

/** graphile-worker's log lines, through our logger (its debug chatter only at debug level). */
function workerLogger(log: Logger): WorkerLogger {
  return new WorkerLogger(() => (level, message) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' ? 'info' : 'debug';
    // graphile-worker puts stack traces in its messages; a log line of ours carries the first line only
    log[method]({ component: 'worker' }, message.split('\n')[0]);
  });
}

/** Starts the job runner in this process (graphile-worker installs its schema in our database on first run). */
export async function startWorker(
  databaseUrl: string,
  log: Logger,
  taskList: TaskList,
  concurrency = 4,
  timeouts?: DatabaseTimeouts,
): Promise<Runner> {
  // graphile-worker wants concurrency + 2; connections open on demand, and with jobs fetched and completed in
  // batches (below) only a few ever do
  const pgPool = createPool(databaseUrl, concurrency + 2, timeouts);
  const runner = await run({
    pgPool,
    concurrency,
    taskList,
    noHandleSignals: true,
    pollInterval: 1_000,
    // fetch jobs in batches and complete them in batches: one round trip per batch instead of two per job. A
    // crashed worker's batch stays locked; the webhook sweep re-queues those deliveries (docs/decisions.md)
    preset: {
      worker: { localQueue: { size: concurrency * 2, ttl: 60_000 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 },
    },
    crontab: '',
    logger: workerLogger(log),
  });
  log.info({ concurrency }, 'worker started');
  const stop = runner.stop.bind(runner);
  runner.stop = async () => {
    await stop();
    await pgPool.end();
  };
  return runner;
}

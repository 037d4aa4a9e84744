import { Logger as WorkerLogger, run, type Runner, type TaskList } from 'graphile-worker';
import type { Logger } from './log.ts';
import { chainComponents, type ChainHealth } from './chain/health.ts';
import type { Db } from './db/database.ts';
import { ping } from './db/ping-store.ts';
import { createPool, type DatabaseTimeouts } from './db/sql.ts';
import { createHealthService, type ComponentReport } from './system/health.ts';
import { serveHealth, type HealthListener } from './system/health-listener.ts';

/** graphile-worker's log lines, through our logger (its debug chatter only at debug level). */
function workerLogger(log: Logger): WorkerLogger {
  return new WorkerLogger(() => (level, message) => {
    let method: 'error' | 'warn' | 'info' | 'debug' =
      level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' ? 'info' : 'debug';
    // its pool is kept small on purpose (WorkerOptions.poolSize): not a warning here; and a line per job done is
    // routine (the job metrics count them), a quarter of an info log's lines under load
    if (message.startsWith('WARNING: having maxPoolSize') || message.startsWith('Completed task')) method = 'debug';
    // graphile-worker puts stack traces in its messages; a log line of ours carries the first line only
    log[method]({ component: 'worker' }, message.split('\n')[0]);
  });
}

interface WorkerOptions {
  concurrency: number;
  /** graphile-worker's own pool (db/pool-budget.ts): its LISTEN connection and the batched fetches and completions. */
  poolSize: number;
  timeouts?: DatabaseTimeouts | undefined;
}

/** A running job runner; `running` turns false once it stops or fails (a worker's /readyz reads it). */
export interface StartedWorker extends Runner {
  readonly running: boolean;
}

/** Starts the job runner in this process (graphile-worker installs its schema in our database on first run). */
export async function startWorker(
  databaseUrl: string,
  log: Logger,
  taskList: TaskList,
  { concurrency, poolSize, timeouts }: WorkerOptions,
): Promise<StartedWorker> {
  // not concurrency + 2 as graphile-worker suggests: jobs are fetched and completed in batches (below), and our tasks
  // query through the process's own pool, so a few connections serve any concurrency
  const pgPool = createPool(databaseUrl, poolSize, timeouts);
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
    // no cron: an empty list, or graphile-worker looks for a ./crontab file and logs that it found none
    parsedCronItems: [],
    logger: workerLogger(log),
  });
  log.info({ concurrency, poolSize }, 'worker started');
  let running = true;
  let stopping = false;
  const ended = () => {
    running = false;
    if (!stopping) log.error({ component: 'worker' }, 'the job runner stopped: no more jobs until a restart');
  };
  runner.promise.then(ended, ended);
  const stop = runner.stop.bind(runner);
  runner.stop = async () => {
    stopping = true;
    running = false;
    await stop();
    await pgPool.end();
  };
  return Object.defineProperty(runner, 'running', { get: () => running }) as StartedWorker;
}

const RUNNER_STOPPED = 'the job runner stopped: no relaying, anchoring or webhook delivery until the process restarts';

/** The job runner as a part of an all-in-one `serve`'s /healthz: degraded once it stopped for good. */
export function runnerComponent(runner: StartedWorker): ComponentReport {
  return runner.running
    ? { components: { worker: 'ok' }, reasons: {} }
    : { components: { worker: 'degraded' }, reasons: { worker: RUNNER_STOPPED } };
}

/**
 * `serve --worker`'s probes on WORKER_HEALTH_PORT: /healthz while the process answers and its job runner runs (with
 * the chain's degraded parts, as the API's), /readyz while the database answers too. graphile-worker stops its runner
 * for good when it cannot record a job's outcome (the database went away mid-job): /healthz then answers 503, so the
 * orchestrator restarts the process.
 */
export async function serveWorkerHealth(
  runner: StartedWorker,
  deps: { db: Db; chainHealth: ChainHealth; port: number; host: string; log: Logger },
): Promise<HealthListener> {
  const health = createHealthService(
    {
      database: () => ping(deps.db),
      worker: async () => {
        if (!runner.running) throw new Error('the job runner stopped');
      },
    },
    [() => chainComponents(deps.chainHealth.latest())],
  );
  const alive = () => (runner.running ? undefined : 'the job runner stopped');
  const listener = await serveHealth(health, { port: deps.port, host: deps.host, alive });
  deps.log.info({ url: listener.url }, 'worker health listening (/healthz, /readyz)');
  return listener;
}

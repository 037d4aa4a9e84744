import type { WorkerEvents } from 'graphile-worker';
import { Histogram } from 'prom-client';
import { sql } from 'kysely';
import type { Db } from './database.ts';
import { PREFIX, scrapedGauge, sharedReading, type ReadingFailed, type Registry } from '../system/metrics.ts';

/** From a job picked up at once to one that waited minutes behind a backlog (or a retry's due time passed). */
const LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];

interface QueuedTask {
  task: string;
  due: number;
  oldestDue: Date | null;
}

/**
 * The job queue (graphile-worker's, every worker's): jobs due and not yet taken by task (every task ever queued, 0
 * when none waits), and how long the oldest has been due, read at scrape time. The same in every process: aggregate
 * with `max`.
 */
export function jobQueueMetrics(registry: Registry, db: Db, failed: ReadingFailed): void {
  // graphile-worker's own tables: not in schema.prisma, so SQL through the query layer's tag
  const read = sharedReading(
    async () =>
      (
        await sql<QueuedTask>`SELECT t.identifier AS task, count(j.id)::int AS due, min(j.run_at) AS "oldestDue"
       FROM graphile_worker._private_tasks t
       LEFT JOIN graphile_worker._private_jobs j ON j.task_id = t.id AND j.is_available AND j.run_at <= now()
       GROUP BY t.identifier`.execute(db)
      ).rows,
  );
  scrapedGauge(
    registry,
    {
      name: `${PREFIX}jobs_due`,
      help: 'Jobs due and not yet taken by a worker, by task: the queue depth.',
      labelNames: ['task'] as const,
    },
    async () => (await read()).map((row) => ({ labels: { task: row.task }, value: row.due })),
    failed,
  );
  scrapedGauge(
    registry,
    {
      name: `${PREFIX}jobs_oldest_due_age_seconds`,
      help: 'How long the longest-waiting due job has waited, in seconds (0: none).',
    },
    async () => {
      const oldest = Math.min(...(await read()).map((row) => row.oldestDue?.getTime() ?? Infinity));
      return Number.isFinite(oldest) ? Math.max(0, (Date.now() - oldest) / 1000) : 0;
    },
    failed,
  );
}

/**
 * `job_queue_latency_seconds{task}`: from a job's due time to a worker of this process starting it. A histogram of
 * this process's jobs (sum the buckets across workers).
 */
export function jobLatencyMetrics(registry: Registry): (events: WorkerEvents, tasks: readonly string[]) => void {
  const latency = new Histogram({
    name: `${PREFIX}job_queue_latency_seconds`,
    help: 'Time from a job being due to a worker starting it, by task, in seconds.',
    labelNames: ['task'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  return (events, tasks) =>
    events.on('job:start', ({ job }) => {
      const task = tasks.includes(job.task_identifier) ? job.task_identifier : 'other';
      latency.observe({ task }, Math.max(0, (Date.now() - new Date(job.run_at).getTime()) / 1000));
    });
}

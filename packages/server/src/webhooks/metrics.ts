import { Counter } from 'prom-client';
import type { Sql } from '../db/sql.ts';
import { PREFIX, scrapedGauge, type ReadingFailed, type Registry } from '../system/metrics.ts';
import type { AttemptOutcome } from './deliver.task.ts';

const OUTCOMES: AttemptOutcome[] = ['completed', 'failed', 'dead'];

/**
 * `webhook_delivery_attempts_total{outcome}`, counted by this process's deliver task, and `webhook_deliveries_pending`,
 * read from the deliveries table at scrape time (the queue of every worker, not only this one's).
 */
export function webhookMetrics(registry: Registry, sql: Sql, failed: ReadingFailed): (outcome: AttemptOutcome) => void {
  const attempts = new Counter({
    name: `${PREFIX}webhook_delivery_attempts_total`,
    help: 'Webhook delivery attempts by what they made of their delivery: completed, failed (retry due) or dead.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of OUTCOMES) attempts.inc({ outcome }, 0);
  scrapedGauge(
    registry,
    {
      name: `${PREFIX}webhook_deliveries_pending`,
      help: 'Webhook deliveries waiting for an attempt (due now or at their next retry): the queue depth.',
    },
    async () => {
      const [row] = await sql.query<{ pending: number }>(
        `SELECT count(*)::int AS pending FROM webhook_deliveries WHERE state = 'pending'`,
      );
      return row?.pending ?? 0;
    },
    failed,
  );
  return (outcome) => attempts.inc({ outcome });
}

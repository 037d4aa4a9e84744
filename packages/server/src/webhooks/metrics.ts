import { Counter } from 'prom-client';
import type { Db } from '../db/database.ts';
import { PREFIX, scrapedGauge, type ReadingFailed, type Registry } from '../system/metrics.ts';
import type { AttemptOutcome } from './deliver.task.ts';
import { pendingDeliveryCount } from './delivery-store.ts';

const OUTCOMES: AttemptOutcome[] = ['completed', 'failed', 'dead'];

/**
 * `webhook_delivery_attempts_total{outcome}`, counted by this process's deliver task, and `webhook_deliveries_pending`,
 * read from the deliveries table at scrape time (the queue of every worker, not only this one's).
 */
export function webhookMetrics(registry: Registry, db: Db, failed: ReadingFailed): (outcome: AttemptOutcome) => void {
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
    () => pendingDeliveryCount(db),
    failed,
  );
  return (outcome) => attempts.inc({ outcome });
}

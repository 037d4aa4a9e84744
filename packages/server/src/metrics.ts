import type { WorkerEvents } from 'graphile-worker';
import { anchorMetrics } from './anchoring/metrics.ts';
import { relayBacklogMetrics } from './attestations/metrics.ts';
import { relayerChainMetrics } from './chain/metrics.ts';
import { describeError } from './errors.ts';
import type { Infrastructure } from './infrastructure.ts';
import { refusalMetrics } from './limits/metrics.ts';
import type { RefusalObserver } from './limits/refusals.ts';
import { businessMetrics } from './system/business-metrics.ts';
import { httpRequestMetrics, type ServedRequest } from './system/http-metrics.ts';
import { jobLatencyMetrics, jobQueueMetrics } from './db/job-metrics.ts';
import { installMeter } from './system/meter.ts';
import { createMetricsRegistry, serveMetrics, type ReadingFailed } from './system/metrics.ts';
import { poolMetrics } from './db/pool-metrics.ts';
import type { AttemptOutcome } from './webhooks/deliver.task.ts';
import { webhookMetrics } from './webhooks/metrics.ts';

/** The process's metrics: the hooks the parts report through, and the listener on METRICS_PORT. */
export interface ProcessMetrics {
  /** The listener's base URL as bound; the text is at `${url}/metrics`. */
  url: string;
  refusals: RefusalObserver;
  onRequest(request: ServedRequest): void;
  onDeliveryAttempt(outcome: AttemptOutcome): void;
  /** Times this process's jobs from due to started (a worker's). */
  watchJobs(events: WorkerEvents, tasks: readonly string[]): void;
  close(): Promise<void>;
}

/**
 * One registry for every part of this process (API, worker, or both: one port), its metrics, and its listener on
 * HOST:METRICS_PORT. startService imports this module only when METRICS_PORT is set: prom-client's load time and memory
 * are not paid by a process without metrics. Names follow Prometheus's conventions (docs/operations.md,
 * "Metrics"): one prefix, base units, `_total` counters.
 */
export async function startMetrics(infra: Infrastructure, port: number): Promise<ProcessMetrics> {
  const { config, clock, log, chainHealth } = infra;
  const registry = createMetricsRegistry();
  const failed: ReadingFailed = (metric, error) =>
    log.warn({ metric, error: describeError(error) }, 'metric not read: the scrape keeps its last value');
  const onRequest = httpRequestMetrics(registry);
  const refusals = refusalMetrics(registry);
  const onDeliveryAttempt = webhookMetrics(registry, infra.db, failed);
  const uninstall = installMeter(businessMetrics(registry));
  poolMetrics(registry, infra.pool);
  jobQueueMetrics(registry, infra.db, failed);
  const watchJobs = jobLatencyMetrics(registry);
  relayBacklogMetrics(registry, infra.db, clock, failed);
  relayerChainMetrics(
    registry,
    { db: infra.db, health: chainHealth, minBalanceWei: config.chain.minBalanceWei },
    failed,
  );
  anchorMetrics(registry, { db: infra.db, clock, intervalMs: config.anchorIntervalMs }, failed);
  const listener = await serveMetrics(registry, port, config.host);
  log.info({ url: `${listener.url}/metrics` }, 'metrics listening');
  const close = async () => {
    uninstall();
    await listener.close();
  };
  return { url: listener.url, refusals, onRequest, onDeliveryAttempt, watchJobs, close };
}

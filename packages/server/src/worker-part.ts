import type { TaskList } from 'graphile-worker';
import { anchoringWorker } from './anchoring/worker.ts';
import { attestationRelayWorks } from './attestations/relay-work.ts';
import { createRelayer } from './chain/relayer.ts';
import { enqueueRelay, RELAY_TASK, relayTask } from './chain/relay.task.ts';
import { createSender } from './chain/sender.ts';
import { createWatch } from './chain/watch.ts';
import { cleanUpAuthPeriodically } from './dashboard/auth-cleanup.ts';
import { describeError } from './errors.ts';
import type { Infrastructure } from './infrastructure.ts';
import type { ProcessMetrics } from './metrics.ts';
import type { ServiceSecrets } from './system/service-secret.ts';
import type { Teardown } from './system/teardown.ts';
import { deliverTask, sweepDeliveries } from './webhooks/deliver.task.ts';
import { DELIVER_TASK } from './webhooks/outbox-store.ts';
import { sealStoredSecrets, webhookSecrets } from './webhooks/secret-seal.ts';
import type { UrlPolicy } from './webhooks/url-guard.ts';
import { serveWorkerHealth, startWorker, type StartedWorker } from './worker.ts';

/** How often a worker looks for deliveries that a dead worker left behind, and how overdue they must be. */
const SWEEP_EVERY_MS = 10_000;
const SWEEP_GRACE_MS = 30_000;

/**
 * The relayer, anchoring and the webhook deliveries as jobs of this process, the sweep for deliveries a dead
 * worker left, and the deletion of expired sign-in challenges; with `probes` (no API here), /healthz and /readyz.
 */
export async function startWorkerPart(
  infra: Infrastructure,
  webhookPolicy: UrlPolicy,
  stack: Teardown,
  metrics: ProcessMetrics | undefined,
  {
    poolSize,
    probes,
    mailTasks,
    secrets,
  }: { poolSize: number; probes: boolean; mailTasks: TaskList; secrets: ServiceSecrets },
): Promise<{ runner: StartedWorker; healthUrl?: string }> {
  const { config, db, pool, clock, log, chain, databaseUrl } = infra;
  const sender = createSender(chain, db, clock, { maxFeeCapWei: config.chain.maxFeeCapWei }, log);
  const watch = createWatch(chain.publicClient, chain.account.address, config.chain.confirmations);
  const anchoring = anchoringWorker({ db, pool, clock, log, chain, intervalMs: config.anchorIntervalMs });
  const works = [
    ...attestationRelayWorks({
      db,
      eas: chain.eas,
      clock,
      log,
      verifyBaseUrl: config.verifyBaseUrl,
      maxItemsPerTx: config.chain.maxItemsPerTx,
    }),
    anchoring.work,
  ];
  const watchOf = (address: `0x${string}`) => createWatch(chain.publicClient, address, config.chain.confirmations);
  const relayer = createRelayer(
    { db, sender, watch, watchOf, clock, log, works },
    {
      maxInFlight: config.chain.maxInFlight,
      gasTarget: config.chain.gasTarget,
      stuckAfterMs: config.chain.stuckAfterMs ?? (chain.dev ? 5_000 : 60_000),
      maxBumps: 5,
      lingerMs: config.chain.lingerMs,
    },
  );
  const sealed = webhookSecrets(secrets);
  // the plain secrets a migration left (SQL has no SERVICE_SECRET), and those only SERVICE_SECRET_PREVIOUS opens
  await sealStoredSecrets({ db, log, secrets: sealed });
  const deliver = deliverTask({
    db: infra.db,
    clock,
    log,
    policy: webhookPolicy,
    secrets: sealed,
    retryDelaysMs: config.webhooks.retryDelaysMs,
    onAttempt: metrics?.onDeliveryAttempt,
  });
  const runner = await startWorker(
    databaseUrl,
    log,
    { [RELAY_TASK]: relayTask(relayer, pool), [DELIVER_TASK]: deliver, ...anchoring.tasks, ...mailTasks },
    { concurrency: config.workerConcurrency, poolSize, timeouts: config.databaseTimeouts },
  );
  stack.push(() => runner.stop());
  metrics?.watchJobs(runner.events, [RELAY_TASK, DELIVER_TASK, ...Object.keys(anchoring.tasks)]);
  await enqueueRelay(db); // reconcile whatever a previous run left in the journal
  stack.push(await anchoring.start());
  // deliveries whose worker died mid-attempt: their jobs stay locked for hours, so new ones are queued
  const sweep = () => sweepDeliveries(infra.db, clock, SWEEP_GRACE_MS);
  const sweepFailed = (error: unknown) => log.warn({ error: describeError(error) }, 'webhook sweep failed');
  await sweep().catch(sweepFailed);
  const sweeper = setInterval(() => {
    sweep().catch(sweepFailed);
  }, SWEEP_EVERY_MS);
  stack.push(async () => clearInterval(sweeper));
  stack.push(cleanUpAuthPeriodically({ db: infra.db, clock, log }));
  if (!probes) return { runner };
  const where = { port: config.workerHealthPort, host: config.host };
  const health = await serveWorkerHealth(runner, { db, chainHealth: infra.chainHealth, ...where, log });
  stack.push(health.close);
  return { runner, healthUrl: health.url };
}

import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { Runner } from 'graphile-worker';
import { buildServices } from './app.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { startEmbeddedPostgres } from './db/embedded-postgres.ts';
import { requireOptional } from './system/optional.ts';
import { applyMigrations } from './db/migrate.ts';
import { createPrisma } from './db/prisma.ts';
import { createPool, pgSql } from './db/sql.ts';
import { Logger as WorkerLogger, runMigrations } from 'graphile-worker';
import { openChain } from './chain/connect.ts';
import { createChainHealth } from './chain/health.ts';
import { attestationRelayWorks } from './attestations/relay-work.ts';
import { createRelayer } from './chain/relayer.ts';
import { enqueueRelay, RELAY_TASK, relayTask } from './chain/relay.task.ts';
import { createSender } from './chain/sender.ts';
import { createApiHandler, listen } from './http/server.ts';
import { createLogger, flushLogger, type Logger } from './log.ts';
import { describeError } from './http/error-response.ts';
import type { Services } from './services.ts';
import type { ReadinessCheck } from './system/health.ts';
import { startWorker } from './worker.ts';
import { deliverTask, sweepDeliveries } from './webhooks/deliver.task.ts';
import { DELIVER_TASK } from './webhooks/outbox.ts';
import type { Resolver } from './webhooks/url-guard.ts';
import { connectRedis, memoryWindowStore, redisWindowStore, type WindowStore } from './limits/sliding-window.ts';

/** How often a worker looks for deliveries that a dead worker left behind, and how overdue they must be. */
const SWEEP_EVERY_MS = 10_000;
const SWEEP_GRACE_MS = 30_000;

export interface ServeParts {
  api: boolean;
  worker: boolean;
  /** The verification web app on VERIFY_PORT (packages/verify-web). */
  verify?: boolean;
}

export interface RunningService {
  /** The API's base URL as bound (the real port when PORT=0). */
  apiUrl: string;
  /** The verification app's URL as bound, when that part runs. */
  verifyUrl?: string;
  databaseUrl: string;
  /** Where on-chain attestations go (the embedded anvil's port changes at each start). */
  chain: { rpcUrl: string; chainId: number; eas: string };
  services: Services;
  stop(): Promise<void>;
}

/** The database the config names, or an embedded PostgreSQL in DATA_DIR that stops with the service. */
export async function openDatabase(config: Config, log: Logger): Promise<{ databaseUrl: string; close(): Promise<void> }> {
  if (config.databaseUrl) return { databaseUrl: config.databaseUrl, close: async () => {} };
  requireOptional('embedded-postgres', 'DATABASE_URL', 'the embedded PostgreSQL');
  const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, log: (line) => log.debug({ component: 'postgres' }, line) });
  log.info({ dataDir: config.dataDir }, 'embedded PostgreSQL started');
  return { databaseUrl: embedded.databaseUrl, close: embedded.stop };
}

/** The composition root: config → database → migrations → services → worker → HTTP. `stop()` undoes it in reverse. */
export async function startService(
  config: Config,
  opts: { parts?: ServeParts; clock?: Clock; log?: Logger; readiness?: Record<string, ReadinessCheck>; resolve?: Resolver } = {},
): Promise<RunningService> {
  const parts = opts.parts ?? { api: true, worker: true };
  const log = opts.log ?? createLogger(config.logLevel);
  const stack: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const undo of stack.reverse().splice(0)) await undo().catch((error: unknown) => log.warn({ error: describeError(error) }, 'stop step failed'));
    flushLogger(log);
  };
  try {
    const database = await openDatabase(config, log);
    stack.push(database.close);
    await applyMigrations(database.databaseUrl, (line) => log.info({ component: 'migrate' }, line));
    const db = createPrisma(database.databaseUrl, config.databaseTimeouts);
    stack.push(() => db.$disconnect());
    const pool = createPool(database.databaseUrl, 10, config.databaseTimeouts);
    stack.push(() => pool.end());
    const readiness: Record<string, ReadinessCheck> = { ...opts.readiness };
    let windows: WindowStore = memoryWindowStore();
    if (config.redisUrl) {
      const redis = await connectRedis(config.redisUrl);
      stack.push(async () => void (await redis.quit()));
      windows = redisWindowStore(redis);
      readiness.redis = async () => void (await redis.ping());
    }
    const clock = opts.clock ?? systemClock;
    const chain = await openChain(config, (line) => log.info({ component: 'chain' }, line));
    stack.push(chain.stop);
    const chainHealth = createChainHealth(chain, { minBalanceWei: config.chain.minBalanceWei });
    stack.push(async () => chainHealth.stop());
    await chainHealth.check();
    readiness.chain = async () => {
      const status = await chainHealth.check();
      if (!status.ok) throw new Error(status.reason);
    };
    // the job tables must exist before any API replica enqueues a relay job, worker or not
    await runMigrations({ pgPool: pool, logger: new WorkerLogger(() => () => undefined) });
    const services = buildServices({ config, db, pool, clock, log, windows, chain, chainHealth, readiness, resolve: opts.resolve });

    let runner: Runner | undefined;
    if (parts.worker) {
      const sender = createSender(chain, pool, clock, { confirmations: config.chain.confirmations, maxFeeCapWei: config.chain.maxFeeCapWei, stuckAfterMs: config.chain.stuckAfterMs ?? (chain.dev ? 5_000 : 60_000), maxBumps: 5 }, log);
      const works = attestationRelayWorks({ pool, eas: chain.eas, clock, log, verifyBaseUrl: config.verifyBaseUrl, maxItemsPerTx: config.chain.maxItemsPerTx });
      const relayer = createRelayer({ pool, sender, clock, works });
      const deliver = deliverTask({ pool, clock, log, policy: services.webhookPolicy, retryDelaysMs: config.webhooks.retryDelaysMs });
      runner = await startWorker(database.databaseUrl, log, { [RELAY_TASK]: relayTask(relayer, pool), [DELIVER_TASK]: deliver }, config.workerConcurrency, config.databaseTimeouts);
      stack.push(() => runner!.stop());
      await enqueueRelay(pgSql(pool)); // reconcile whatever a previous run left in the journal
      // deliveries whose worker died mid-attempt: their jobs stay locked for hours, so new ones are queued
      const sweep = () => sweepDeliveries(pgSql(pool), clock, SWEEP_GRACE_MS).catch((error: unknown) => log.warn({ error: describeError(error) }, 'webhook sweep failed'));
      await sweep();
      const sweeper = setInterval(sweep, SWEEP_EVERY_MS);
      stack.push(async () => clearInterval(sweeper));
    }
    // the verification app in this process reads the API for its visitors: this token lets their addresses through
    const proxyToken = parts.api && parts.verify ? randomBytes(24).toString('hex') : undefined;
    let server: Server | undefined;
    let apiUrl = config.publicBaseUrl;
    if (parts.api) {
      server = await listen(createApiHandler(services, { proxyToken }), config.port, config.host);
      stack.push(() => closeServer(server!));
      const address = server.address();
      if (address && typeof address === 'object') apiUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}`;
      log.info({ url: apiUrl }, 'API listening');
    }
    let verifyUrl: string | undefined;
    if (parts.verify) {
      // loaded only where it runs: an API or worker process does not carry the app's modules
      const { startVerifyPart } = await import('./verify-part.ts');
      const verify = await startVerifyPart(config, { apiUrl: parts.api ? apiUrl : (config.verify.apiUrl ?? apiUrl), chain, attester: chain.account.address, windows, proxyToken }, log);
      stack.push(verify.stop);
      verifyUrl = verify.url;
    }
    return { apiUrl, verifyUrl, databaseUrl: database.databaseUrl, chain: { rpcUrl: chain.rpcUrl, chainId: chain.chainId, eas: chain.eas }, services, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** How long a stopping API waits for its requests in flight (an on-chain create waits for its receipt). */
const DRAIN_MS = 30_000;

/**
 * Stops accepting, lets the requests in flight finish (DRAIN_MS at most, then their connections are cut) and closes
 * keep-alive connections as they fall idle; resolves when the last one is gone.
 */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    const cut = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}

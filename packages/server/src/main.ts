import type { Server } from 'node:http';
import type { Runner } from 'graphile-worker';
import { buildServices } from './app.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { startEmbeddedPostgres } from './db/embedded-postgres.ts';
import { applyMigrations } from './db/migrate.ts';
import { createPrisma } from './db/prisma.ts';
import { createPool } from './db/sql.ts';
import { createApiHandler, listen } from './http/server.ts';
import { createLogger, flushLogger, type Logger } from './log.ts';
import { describeError } from './http/error-response.ts';
import type { Services } from './services.ts';
import type { ReadinessCheck } from './system/health.ts';
import { startWorker } from './worker.ts';
import { Redis } from 'ioredis';
import { memoryWindowStore, redisWindowStore, type WindowStore } from './limits/sliding-window.ts';

export interface ServeParts {
  api: boolean;
  worker: boolean;
}

export interface RunningService {
  /** The API's base URL as bound (the real port when PORT=0). */
  apiUrl: string;
  databaseUrl: string;
  services: Services;
  stop(): Promise<void>;
}

/** The database the config names, or an embedded PostgreSQL in DATA_DIR that stops with the service. */
export async function openDatabase(config: Config, log: Logger): Promise<{ databaseUrl: string; close(): Promise<void> }> {
  if (config.databaseUrl) return { databaseUrl: config.databaseUrl, close: async () => {} };
  const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, log: (line) => log.debug({ component: 'postgres' }, line) });
  log.info({ dataDir: config.dataDir }, 'embedded PostgreSQL started');
  return { databaseUrl: embedded.databaseUrl, close: embedded.stop };
}

/** The composition root: config → database → migrations → services → worker → HTTP. `stop()` undoes it in reverse. */
export async function startService(
  config: Config,
  opts: { parts?: ServeParts; clock?: Clock; log?: Logger; readiness?: Record<string, ReadinessCheck> } = {},
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
    const db = createPrisma(database.databaseUrl);
    stack.push(() => db.$disconnect());
    const pool = createPool(database.databaseUrl);
    stack.push(() => pool.end());
    const readiness: Record<string, ReadinessCheck> = { ...opts.readiness };
    let windows: WindowStore = memoryWindowStore();
    if (config.redisUrl) {
      const redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: false });
      await redis.connect();
      stack.push(async () => void (await redis.quit()));
      windows = redisWindowStore(redis);
      readiness.redis = async () => void (await redis.ping());
    }
    const services = buildServices({ config, db, pool, clock: opts.clock ?? systemClock, log, windows, readiness });

    let runner: Runner | undefined;
    if (parts.worker) {
      runner = await startWorker(database.databaseUrl, log);
      stack.push(() => runner!.stop());
    }
    let server: Server | undefined;
    let apiUrl = config.publicBaseUrl;
    if (parts.api) {
      server = await listen(createApiHandler(services), config.port, config.host);
      stack.push(() => closeServer(server!));
      const address = server.address();
      if (address && typeof address === 'object') apiUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}`;
      log.info({ url: apiUrl }, 'API listening');
    }
    return { apiUrl, databaseUrl: database.databaseUrl, services, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  });
}

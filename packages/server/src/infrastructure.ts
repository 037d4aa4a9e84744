import { Logger as WorkerLogger, runMigrations } from 'graphile-worker';
import { openChain, type Chain } from './chain/connect.ts';
import { createChainHealth, type ChainHealth } from './chain/health.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { startEmbeddedPostgres } from './db/embedded-postgres.ts';
import { applyMigrations } from './db/migrate.ts';
import { createDatabase, type Db } from './db/database.ts';
import { keepsSession } from './db/session-check.ts';
import { createPool, type Pool } from './db/sql.ts';
import { connectRedis, memoryWindowStore, redisWindowStore, type WindowStore } from './limits/sliding-window.ts';
import { createLogger, flushLogger, type Logger } from './log.ts';
import type { ReadinessCheck } from './system/health.ts';
import { requireOptional } from './system/optional.ts';
import { unreachableDatabase } from './db/unreachable.ts';
import { createTeardown, type Teardown } from './system/teardown.ts';

/** What every process opens: its logger and clock, and one close for all it opened. */
interface BaseInfrastructure {
  config: Config;
  log: Logger;
  clock: Clock;
  /** Checks /readyz runs besides the database (Redis); the chain is a degraded state, never not-ready. */
  readiness: Record<string, ReadinessCheck>;
  /** Closes what was opened, last opened first, and flushes the log. */
  close(): Promise<void>;
}

/** A CLI command's: the migrated database (db/database.ts), on a pg pool. */
export interface CommandInfrastructure extends BaseInfrastructure {
  databaseUrl: string;
  /** The migrations this open applied (none when the database was up to date). */
  migrations: string[];
  db: Db;
  /** The pool under `db`: graphile-worker's and the pool metrics' (they take a pg pool). */
  pool: Pool;
}

/** The verification app's on its own: only the rate-limit windows it shares with the API. */
export interface VerifyInfrastructure extends BaseInfrastructure {
  windows: WindowStore;
}

/** The API's and the worker's: the database, the windows, the chain with its health, the job tables. */
export interface Infrastructure extends CommandInfrastructure, VerifyInfrastructure {
  chain: Chain;
  chainHealth: ChainHealth;
}

/** Who opens: `service` (API, worker), `command` (a CLI command), `verify` (the verification app alone). */
type Scope = 'service' | 'command' | 'verify';

interface OpenOptions {
  /** Tests pass a manual clock, a logger of their own, extra readiness checks. */
  clock?: Clock;
  log?: Logger;
  readiness?: Record<string, ReadinessCheck>;
  /** The database pool's size (db/pool-budget.ts); a service's default is an API's. */
  poolSizes?: { pool: number };
}

/**
 * What each scope opens. A command uses one connection and no request timeouts (a support query such as `audit
 * verify` may walk a whole chain) and keeps its output clean: no migration lines, info logging only as warnings.
 */
const SCOPES = {
  service: { database: true, poolSize: 14, timeouts: true, quiet: false, windows: true, chain: true },
  command: { database: true, poolSize: 1, timeouts: false, quiet: true, windows: false, chain: false },
  verify: { database: false, poolSize: 0, timeouts: false, quiet: false, windows: true, chain: false },
} as const;

type Settings = (typeof SCOPES)[Scope];

/** The database the config names, or an embedded PostgreSQL in DATA_DIR that stops with the process. */
async function openDatabase(config: Config, log: Logger, teardown: Teardown): Promise<string> {
  if (config.databaseUrl) return config.databaseUrl;
  requireOptional('embedded-postgres', 'DATABASE_URL', 'the embedded PostgreSQL');
  const embedded = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    log: (line) => log.debug({ component: 'postgres' }, line),
  });
  teardown.push(embedded.stop);
  log.info({ dataDir: config.dataDir }, 'embedded PostgreSQL started');
  return embedded.databaseUrl;
}

async function openStorage(
  config: Config,
  log: Logger,
  teardown: Teardown,
  scope: Settings,
  sizes: { pool: number } = { pool: scope.poolSize },
) {
  const databaseUrl = await openDatabase(config, log, teardown);
  // the first connection: a wrong DATABASE_URL is said in one line naming it, not as connect ECONNREFUSED
  const migrations = await applyMigrations(
    databaseUrl,
    scope.quiet ? undefined : (line) => log.info({ component: 'migrate' }, line),
  ).catch((error: unknown) => {
    throw (config.databaseUrl && unreachableDatabase(error, databaseUrl, 'DATABASE_URL')) || error;
  });
  const timeouts = scope.timeouts ? config.databaseTimeouts : undefined;
  // the hot reads as prepared statements, unless a transaction-mode pooler sits in front (docs/operations.md)
  const preparedStatements = await keepsSession(databaseUrl);
  const pool = createPool(databaseUrl, sizes.pool, timeouts, { preparedStatements });
  teardown.push(() => pool.end());
  return { databaseUrl, migrations, db: createDatabase(pool), pool };
}

/** Rate-limit windows: in memory, or in Redis (shared by replicas and the verification app) when REDIS_URL is set. */
async function openWindows(
  config: Config,
  teardown: Teardown,
  readiness: Record<string, ReadinessCheck>,
): Promise<WindowStore> {
  if (!config.redisUrl) return memoryWindowStore();
  const redis = await connectRedis(config.redisUrl);
  teardown.push(async () => void (await redis.quit()));
  readiness.redis = async () => void (await redis.ping());
  return redisWindowStore(redis);
}

async function openChainParts(config: Config, log: Logger, teardown: Teardown) {
  const chain = await openChain(config, log);
  teardown.push(chain.stop);
  const chainHealth = createChainHealth(chain, { minBalanceWei: config.chain.minBalanceWei });
  teardown.push(async () => chainHealth.stop());
  await chainHealth.check();
  return { chain, chainHealth };
}

/**
 * The composition root's one door to the outside: opens, from the config, what a process of this scope needs
 * (database and migrations, the pg pool, the windows, the chain, the clock, the logger) and returns it
 * with one `close()`. The API, the worker, the verification app and every CLI command are built from its result.
 */
export function openInfrastructure(
  config: Config,
  opts: OpenOptions & { scope: 'command' },
): Promise<CommandInfrastructure>;
export function openInfrastructure(
  config: Config,
  opts: OpenOptions & { scope: 'verify' },
): Promise<VerifyInfrastructure>;
export function openInfrastructure(config: Config, opts?: OpenOptions & { scope?: 'service' }): Promise<Infrastructure>;
export async function openInfrastructure(
  config: Config,
  opts: OpenOptions & { scope?: Scope } = {},
): Promise<BaseInfrastructure> {
  const scope = SCOPES[opts.scope ?? 'service'];
  const level = scope.quiet && config.logLevel === 'info' ? 'warn' : config.logLevel;
  const log = opts.log ?? createLogger(level, undefined, undefined, config.logFormat);
  const teardown = createTeardown(log);
  const close = async () => {
    await teardown.run();
    flushLogger(log);
  };
  const readiness = { ...opts.readiness };
  try {
    const storage = scope.database ? await openStorage(config, log, teardown, scope, opts.poolSizes) : undefined;
    const windows = scope.windows ? { windows: await openWindows(config, teardown, readiness) } : undefined;
    const chain = scope.chain ? await openChainParts(config, log, teardown) : undefined;
    // the job tables must exist before any API replica enqueues a relay job, worker or not
    if (chain && storage)
      await runMigrations({ pgPool: storage.pool, logger: new WorkerLogger(() => () => undefined) });
    return Object.assign({ config, log, clock: opts.clock ?? systemClock, readiness, close }, storage, windows, chain);
  } catch (error) {
    await close();
    throw error;
  }
}

/** Runs `fn` on a command's infrastructure, closed after: what the launcher hands a feature's CLI command. */
export type WithInfrastructure = <T>(fn: (infra: CommandInfrastructure) => Promise<T>) => Promise<T>;

/**
 * Opens a command's infrastructure only when the command, its arguments checked, asks for it; a function gives the
 * config only then too (the CLI's checks against its service: system/command-service.ts).
 */
export function commandInfrastructure(config: Config | (() => Promise<Config>)): WithInfrastructure {
  return async (fn) => {
    const infra = await openInfrastructure(typeof config === 'function' ? await config() : config, {
      scope: 'command',
    });
    try {
      return await fn(infra);
    } finally {
      await infra.close();
    }
  };
}

import { randomBytes } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { loadConfig, type Config } from '../../src/config.ts';
import { pgSql, type Sql } from './sql.ts';
import type { Db } from './db.ts';
import { addToAccount, addToKey } from '../../src/limits/quota-store.ts';
import { periodOf } from '../../src/limits/quota.ts';
import type { Clock } from '../../src/clock.ts';
import type { Logger } from '../../src/log.ts';
import { startService, type RunningService } from '../../src/main.ts';
import type { Tier } from '../../src/keys/format.ts';
import type { ReadinessCheck } from '../../src/system/health.ts';
import type { Resolver } from '../../src/webhooks/url-guard.ts';
import { createTestDatabase } from './database.ts';
import { TEST_SERVICE_SECRET } from './secret.ts';
import { inject } from 'vitest';
import './provided.ts';

export interface TestService extends RunningService {
  url: string;
  /**
   * The service's database, typed (support/db.ts), for tests that read or seed rows (procedures never get it:
   * services hold no client).
   */
  db: Db;
  /** The same database in raw SQL, only for what the typed `db` cannot say (each use says why). */
  sql: Sql;
  config: Config;
  /** A fresh key of its own account (each test seeds its own tenant). */
  createKey(tier?: Tier, account?: string): Promise<{ key: string; prefix: string; account: string }>;
  /** Marks `used` on-chain attestations as spent this UTC month by the key with this prefix (and its account). */
  chargeQuota(prefix: string, used: number): Promise<void>;
}

let accountSeq = 0;
/** A cap no test reaches (PostgreSQL's largest integer). */
const UNCAPPED = 2 ** 31 - 1;

/** The real service on a fresh database and a free port (no worker unless asked). */
export async function startTestService(
  opts: {
    env?: Record<string, string>;
    clock?: Clock;
    worker?: boolean;
    readiness?: Record<string, ReadinessCheck>;
    resolve?: Resolver;
    /** The service's logger (its LOG_LEVEL then does not apply): a test that keeps its lines to show on failure. */
    log?: Logger;
  } = {},
): Promise<TestService> {
  const databaseUrl = opts.env?.DATABASE_URL ?? (await createTestDatabase());
  const chain = inject('chain');
  // TRUST_PROXY: tests that are not about limits give each call its own client address (see call())
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    DATABASE_URL: databaseUrl,
    TRUST_PROXY: 'true',
    CHAIN_RPC_URL: chain.rpcUrl,
    EAS_ADDRESS: chain.eas,
    SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
    RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
    RELAY_STUCK_AFTER: '2s',
    SERVICE_SECRET: TEST_SERVICE_SECRET,
    ...opts.env,
  });
  const service = await startService(config, {
    parts: { api: true, worker: opts.worker ?? true },
    clock: opts.clock,
    readiness: opts.readiness,
    resolve: opts.resolve,
    log: opts.log,
  });
  return {
    ...service,
    url: service.apiUrl,
    db: service.infrastructure.db,
    sql: pgSql(service.infrastructure.pool),
    config: service.infrastructure.config,
    async createKey(tier = 'free', account) {
      const name = account ?? `acct-${process.pid}-${++accountSeq}-${Math.random().toString(36).slice(2, 8)}`;
      const created = await service.services.keys.create({ tier, account: name });
      return { key: created.key, prefix: created.prefix, account: name };
    },
    async chargeQuota(prefix, used) {
      const db = service.infrastructure.db;
      const period = periodOf(Date.now());
      const key = await db
        .selectFrom('apiKeys')
        .select(['id', 'accountId'])
        .where('prefix', '=', prefix)
        .executeTakeFirst();
      if (!key) return;
      // the account's counter holds every key's use (limits/quota.ts); no cap: a test spends what it says
      await addToKey(db, key.id, period, used, UNCAPPED);
      await addToAccount(db, key.accountId, period, used, UNCAPPED);
    },
  };
}

/** A JSON request to the service; returns status, headers and the parsed body. */
export async function call(
  base: string,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string | Buffer } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { 'x-forwarded-for': randomIp(), ...opts.headers };
  if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
  let body: string | Buffer | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: the test sees the text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** A documentation-range address, different for every call, so anonymous limits do not bite unrelated tests. */
export function randomIp(): string {
  return `198.51.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`;
}

/** A new relayer key with 1000 ETH on the run's anvil: each test service signs with its own, so nonces never race. */
export async function fundedKey(rpcUrl: string): Promise<string> {
  const key = `0x${randomBytes(32).toString('hex')}`;
  const address = privateKeyToAccount(key as `0x${string}`).address;
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'anvil_setBalance',
      params: [address, '0x3635c9adc5dea00000'],
    }),
  });
  if (!res.ok) throw new Error(`anvil_setBalance failed: ${res.status}`);
  return key;
}

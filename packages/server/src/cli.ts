#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { systemClock } from './clock.ts';
import { applyMigrations } from './db/migrate.ts';
import { createPrisma } from './db/prisma.ts';
import { createPool } from './db/sql.ts';
import { createKeyService, type KeySummary } from './keys/service.ts';
import { isPrefix, TIERS, type Tier } from './keys/format.ts';
import { createLogger } from './log.ts';
import { openDatabase, startService } from './main.ts';
import { auditVerify } from './audit/cli.ts';
import { deliveriesCommand } from './webhooks/cli.ts';
import { UsageError } from './errors.ts';

const USAGE = `attestation-service <command>

  serve [--api] [--worker] [--verify]      run the service (everything unless parts are named)
  keys create --tier free|pro|enterprise [--account NAME] [--name LABEL] [--json]
  keys list [--account NAME] [--json]
  keys revoke PREFIX12
  audit verify [--account NAME] [--json]   walk each audit chain; name the first broken link (exit 1)
  deliveries list [--state pending|completed|dead|dropped] [--account NAME] [--limit N] [--json]
  deliveries replay DELIVERY_ID            send a dead delivery again (same X-Service-Delivery)
  migrate                                  apply database migrations
`;

function print(json: boolean, value: object, text: string): void {
  console.log(json ? JSON.stringify(value) : text);
}

async function serve(config: Config, flags: { api?: boolean; worker?: boolean; verify?: boolean }): Promise<void> {
  const all = !flags.api && !flags.worker && !flags.verify;
  // the verification app alone needs no database and no relayer key, only the API and the chain
  const service = flags.verify && !flags.api && !flags.worker
    ? await (await import('./verify-part.ts')).startVerifyOnly(config, createLogger(config.logLevel))
    : await startService(config, { parts: { api: all || !!flags.api, worker: all || !!flags.worker, verify: all || !!flags.verify } });
  let stopping = false;
  // in order (docs/operations.md): stop accepting, drain the requests in flight, the worker, the chain, the database
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      console.error(`attestation-service: ${signal} again: stopping now`);
      process.exit(130);
    }
    stopping = true;
    console.error(`attestation-service: stopping after the requests in flight (${signal} again to stop at once)`);
    service.stop().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  const parts = 'apiUrl' in service
    ? [all || flags.api ? `API on ${service.apiUrl} (docs at ${service.apiUrl}/docs)` : '', all || flags.worker ? 'worker running' : '', service.verifyUrl ? `verification app on ${service.verifyUrl}` : '']
    : [`verification app on ${service.url}`];
  const where = parts.filter(Boolean).join(', ');
  console.error(`attestation-service: ${where}; Ctrl-C stops`);
}

/** Runs `fn` against the configured database (starting the embedded one if nothing runs it). */
async function withDatabase<T>(config: Config, fn: (databaseUrl: string) => Promise<T>): Promise<T> {
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const database = await openDatabase(config, log);
  try {
    await applyMigrations(database.databaseUrl);
    return await fn(database.databaseUrl);
  } finally {
    await database.close();
  }
}

// prefix, tier, account, name, created (ISO 8601 is 24 characters), revoked
const KEY_COLUMNS = [12, 10, 16, 16, 24, 0];
const keyRow = (cells: string[]) => cells.map((cell, i) => cell.padEnd(KEY_COLUMNS[i]!)).join('  ').trimEnd();

/** `keys list`: JSON lines, or a table with a header (NAME is the label given at `keys create --name`). */
function listKeys(list: KeySummary[], json: boolean): void {
  if (!json && list.length === 0) return void console.error('no keys');
  if (!json) console.log(keyRow(['PREFIX', 'TIER', 'ACCOUNT', 'NAME', 'CREATED', 'REVOKED']));
  for (const key of list) print(json, key, keyRow([key.prefix, key.tier, key.account, key.name ?? '-', key.createdAt, key.revokedAt ?? '']));
}

async function keys(config: Config, args: string[], flags: { tier?: string; account?: string; name?: string; json?: boolean }): Promise<void> {
  const [action, target] = args;
  const json = !!flags.json;
  if (action === 'create' && !TIERS.includes(flags.tier as Tier)) throw new UsageError('keys create needs --tier free|pro|enterprise');
  if (action === 'revoke' && !isPrefix(target ?? '')) throw new UsageError('keys revoke needs the 12-hex-character key prefix');
  if (action !== 'create' && action !== 'list' && action !== 'revoke') throw new UsageError(`unknown keys command: ${action ?? '(none)'}`);
  await withDatabase(config, async (databaseUrl) => {
    const db = createPrisma(databaseUrl);
    const pool = createPool(databaseUrl, 1);
    try {
      const service = createKeyService(db, pool, systemClock);
      if (action === 'create') {
        const created = await service.create({ tier: flags.tier as Tier, account: flags.account ?? 'default', name: flags.name });
        print(json, created, `${created.key}\n(shown once: store it now; prefix ${created.prefix}, tier ${created.tier}, account ${created.account})`);
      } else if (action === 'list') {
        listKeys(await service.list(flags.account), json);
      } else {
        const revoked = await service.revoke(target!);
        if (!revoked) {
          console.error(`attestation-service: no key with prefix ${target}`);
          process.exitCode = 1;
        } else print(json, revoked, `revoked ${revoked.prefix} at ${revoked.revokedAt}`);
      }
    } finally {
      await Promise.all([db.$disconnect(), pool.end()]);
    }
  });
}

async function audit(config: Config, args: string[], flags: { account?: string; json?: boolean }): Promise<void> {
  if (args[0] !== 'verify') throw new UsageError(`unknown audit command: ${args[0] ?? '(none)'}`);
  const intact = await withDatabase(config, (databaseUrl) => auditVerify(databaseUrl, flags));
  if (!intact) process.exitCode = 1;
}

async function deliveries(config: Config, args: string[], flags: { state?: string; account?: string; limit?: string; json?: boolean }): Promise<void> {
  if (args[0] !== 'list' && !(args[0] === 'replay' && args[1])) throw new UsageError(args[0] === 'replay' ? 'deliveries replay needs the delivery id' : `unknown deliveries command: ${args[0] ?? '(none)'}`);
  const ok = await withDatabase(config, (databaseUrl) => deliveriesCommand(databaseUrl, args, flags));
  if (!ok) process.exitCode = 1;
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      api: { type: 'boolean' },
      worker: { type: 'boolean' },
      verify: { type: 'boolean' },
      tier: { type: 'string' },
      account: { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean' },
      state: { type: 'string' },
      limit: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(USAGE);
    return;
  }
  const config = loadConfig();
  if (command === 'serve') return serve(config, values);
  if (command === 'keys') return keys(config, rest, values);
  if (command === 'audit') return audit(config, rest, values);
  if (command === 'deliveries') return deliveries(config, rest, values);
  if (command === 'migrate') {
    const applied = await withDatabase(config, (url) => applyMigrations(url));
    console.log(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
    return;
  }
  throw new UsageError(`unknown command: ${command}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof UsageError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
    console.error(`attestation-service: ${error.message}`);
    if (error instanceof UsageError) process.stderr.write(`\n${USAGE}`);
    process.exit(2);
  }
  console.error(`attestation-service: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { startService } from './main.ts';
import { commandInfrastructure } from './infrastructure.ts';
import { auditCommand } from './audit/cli.ts';
import { migrateCommand } from './db/cli.ts';
import { keysCommand } from './keys/cli.ts';
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

async function serve(config: Config, flags: { api?: boolean; worker?: boolean; verify?: boolean }): Promise<void> {
  const all = !flags.api && !flags.worker && !flags.verify;
  // the verification app alone needs no database and no relayer key, only the API and the chain
  const service = flags.verify && !flags.api && !flags.worker
    ? await (await import('./verify-part.ts')).startVerifyOnly(config)
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

/** Runs a feature's command; a failed one exits 1. */
async function run(command: Promise<boolean>): Promise<void> {
  if (!(await command)) process.exitCode = 1;
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
  const withInfrastructure = commandInfrastructure(config);
  if (command === 'keys') return run(keysCommand(withInfrastructure, rest, values));
  if (command === 'audit') return run(auditCommand(withInfrastructure, rest, values));
  if (command === 'deliveries') return run(deliveriesCommand(withInfrastructure, rest, values));
  if (command === 'migrate') return run(migrateCommand(withInfrastructure));
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

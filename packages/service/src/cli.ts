#!/usr/bin/env node
import { parseArgs } from 'node:util';
import {
  accountsCommand,
  auditCommand,
  commandConfig,
  commandInfrastructure,
  credentialsCommand,
  ConfigError,
  deliveriesCommand,
  doctorCommand,
  keysCommand,
  loadConfig,
  migrateCommand,
  UsageError,
  webhooksCommand,
} from '@attestation-service/server';
import { loadEnvFile } from './env-file.ts';
import { serve } from './serve.ts';

const USAGE = `attestation-service <command>

  serve [--api] [--worker] [--verify]      run the service (everything unless parts are named)
  keys create --tier free|pro|enterprise [--account NAME|id:UUID] [--name LABEL] [--json]
  keys list [--account NAME] [--json]
  keys revoke PREFIX12
  audit verify [--account NAME] [--json]   walk each audit chain; name the first broken link (exit 1)
  deliveries list [--state pending|completed|dead|dropped] [--account NAME] [--limit N] [--json]
  deliveries replay DELIVERY_ID            send a dead delivery again (same X-Service-Delivery)
  webhooks rotate-secret SUBSCRIPTION_ID [--keep HOURS] [--json]
                                           a new signing secret (printed once); the previous one
                                           signs too for HOURS (default 24; 0 retires it at once)
  webhooks test SUBSCRIPTION_ID [--json]   send it a signed webhook.test event
  webhooks listen --forward-to URL [--account NAME|id:UUID] [--events a,b]
                                           development: forward an account's deliveries to URL (your
                                           app) until Ctrl-C; the worker must run on this machine
  accounts invite --account NAME|id:UUID --email E --role owner|admin|developer|viewer [--no-mail] [--json]
                                           a one-time dashboard invitation link (7 days), mailed
                                           to E too unless --no-mail
  accounts invite --support --email E [--no-mail] [--json]   a member of the operator's support team
  accounts owner-link --account NAME|id:UUID [--json]   a one-time owner link (7 days) for an account with no owner
  accounts set-plan NAME|id:UUID free|pro|enterprise   its plan: quota, rate, mintable tiers
  accounts list [--json]
  credentials keys [--json]                the keys that sign Verifiable Credentials (newest signs)
  credentials rotate-key [--json]          a new signing key; the old ones stay published
  credentials retire-key KID               unpublish a key: what it signed verifies no more
  migrate [--create]                       apply database migrations (--create: a new embedded
                                           database in DATA_DIR, where no service has run yet)
  doctor [--json]                          what is configured, what answers, what is missing;
                                           each failure names its setting (exit 1). Alias: config check

Settings come from the environment, then from .env in the current directory (or the file ENV_FILE
names). A command uses the database of the service that runs with its DATA_DIR (DATA_DIR/service.json).
`;

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
      keep: { type: 'string' },
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      support: { type: 'boolean' },
      'no-mail': { type: 'boolean' },
      create: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(USAGE);
    return;
  }
  // what this command line was given: the .env it shares with its service is no choice of its own
  const given = { ...process.env };
  const envFile = loadEnvFile(process.env, process.cwd());
  if (command === 'doctor' || (command === 'config' && rest[0] === 'check'))
    return run(doctorCommand({ env: process.env, envFile, json: values.json }));
  const config = loadConfig();
  if (command === 'serve') return serve(config, values);
  // the database of the service this DATA_DIR belongs to, checked when a command opens it: never a new one
  const withInfrastructure = commandInfrastructure(() =>
    commandConfig(config, given, { create: command === 'migrate' && values.create }),
  );
  if (command === 'keys') return run(keysCommand(withInfrastructure, rest, values));
  if (command === 'audit') return run(auditCommand(withInfrastructure, rest, values));
  if (command === 'deliveries') return run(deliveriesCommand(withInfrastructure, rest, values));
  if (command === 'webhooks') return run(webhooksCommand(withInfrastructure, rest, values));
  if (command === 'accounts') return run(accountsCommand(withInfrastructure, rest, values));
  if (command === 'credentials') return run(credentialsCommand(withInfrastructure, rest, values));
  if (command === 'migrate') return run(migrateCommand(withInfrastructure));
  throw new UsageError(`unknown command: ${command}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (
    error instanceof ConfigError ||
    error instanceof UsageError ||
    (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
  ) {
    console.error(`attestation-service: ${error.message}`);
    if (error instanceof UsageError) process.stderr.write(`\n${USAGE}`);
    process.exit(2);
  }
  console.error(`attestation-service: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

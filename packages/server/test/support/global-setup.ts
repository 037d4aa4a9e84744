import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import './provided.ts';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.ts';
import { startDevChain } from '../../src/chain/dev-chain.ts';
import { TEST_SERVICE_SECRET } from './secret.ts';

const ANVIL_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

const PREFIX = 'attestation_test_';
const STALE_AFTER_SECONDS = 6 * 60 * 60;

/** Provides a PostgreSQL server for the whole run: the machine's (`DATABASE_URL`) or an embedded one in a temp dir. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // the test workers inherit it, and the CLI children they start with their environment
  process.env.SERVICE_SECRET ??= TEST_SERVICE_SECRET;
  const runPrefix = `${PREFIX}${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}_`;
  project.provide('testDatabasePrefix', runPrefix);
  const chainDir = await mkdtemp(join(tmpdir(), 'attestation-test-chain-'));
  const chain = await startDevChain({ dataDir: chainDir, deployerKey: ANVIL_KEY });
  project.provide('chain', { rpcUrl: chain.rpcUrl, eas: chain.eas, schemaRegistry: chain.schemaRegistry });
  const stopChain = async () => {
    await chain.stop();
    await rm(chainDir, { recursive: true, force: true });
  };

  const sharedServerUrl = process.env.DATABASE_URL;
  if (sharedServerUrl) {
    project.provide('adminDatabaseUrl', sharedServerUrl);
    await dropTestDatabases(sharedServerUrl, (name) => isStale(name));
    return async () => {
      await stopChain();
      await dropTestDatabases(sharedServerUrl, (name) => name.startsWith(runPrefix));
    };
  }

  const dataDir = await mkdtemp(join(tmpdir(), 'attestation-test-pg-'));
  const server = await startEmbeddedPostgres({ dataDir });
  project.provide('adminDatabaseUrl', server.databaseUrl);
  return async () => {
    await stopChain();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}

// Databases left by crashed runs carry their creation time in their name.
function isStale(name: string): boolean {
  const createdAt = Number(name.slice(PREFIX.length).split('_')[0]);
  return Number.isFinite(createdAt) && Date.now() / 1000 - createdAt > STALE_AFTER_SECONDS;
}

async function dropTestDatabases(adminUrl: string, shouldDrop: (name: string) => boolean): Promise<void> {
  // raw SQL on purpose: databases are the server's own (its catalog, DROP DATABASE), no table of ours
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`,
      [PREFIX],
    );
    for (const { datname } of rows.filter((row) => shouldDrop(row.datname))) {
      // FORCE ends connections a test left open (a pool not closed, a crashed worker).
      await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(datname)} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}

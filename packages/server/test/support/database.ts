import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import './provided.ts';
import { applyMigrations } from '../../src/db/migrate.ts';

/** Creates an empty, uniquely named database on the run's PostgreSQL server and returns its URL. */
export async function createEmptyTestDatabase(): Promise<string> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `${inject('testDatabasePrefix')}${randomBytes(4).toString('hex')}`;
  // raw SQL on purpose: a database is made on the server, before there is any table to type
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates a fresh database with every migration applied (one per test file) and returns its URL. */
export async function createTestDatabase(): Promise<string> {
  const url = await createEmptyTestDatabase();
  await applyMigrations(url);
  return url;
}

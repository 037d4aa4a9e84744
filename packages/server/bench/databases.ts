import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';

/** The PostgreSQL server the bench makes its databases on: DATABASE_URL's, or an embedded one of its own. */
export async function postgresServer(): Promise<{ url: string; close(): Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, close: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), 'bench-pg-'));
  const embedded = await startEmbeddedPostgres({ dataDir: dir });
  return {
    url: embedded.databaseUrl,
    close: async () => (await embedded.stop(), await rm(dir, { recursive: true, force: true })),
  };
}

/** Fresh databases on the server of `url`, each named `bench_<name>_<time>`, all dropped by `dropAll()`. */
export function benchDatabases(url: string): { make(name: string): Promise<string>; dropAll(): Promise<void> } {
  // a service on an external database refuses to start without it; the bench's children inherit this one
  process.env.SERVICE_SECRET ??= randomBytes(32).toString('base64');
  const made: string[] = [];
  const onAdmin = async (statements: string[]) => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      for (const statement of statements) await admin.query(statement);
    } finally {
      await admin.end();
    }
  };
  return {
    async make(name) {
      const dbName = `bench_${name}_${Date.now()}`;
      await onAdmin([`CREATE DATABASE ${dbName}`]);
      made.push(dbName);
      const next = new URL(url);
      next.pathname = `/${dbName}`;
      return next.toString();
    },
    dropAll: () => onAdmin(made.splice(0).map((dbName) => `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)),
  };
}

import { createHash } from 'node:crypto';
import { appendFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { applyMigrations } from '../../src/db/migrate.ts';
import { createEmptyTestDatabase } from '../support/database.ts';

const MIGRATIONS_DIR = resolve(import.meta.dirname, '../../../../prisma/migrations');

// Raw SQL on purpose: the test is of migrations, read through Prisma's bookkeeping table and the catalog, which the
// typed database (the schema after them) does not declare.
async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

async function migrationNamesOnDisk(dir = MIGRATIONS_DIR): Promise<string[]> {
  return (await readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

// A private copy of prisma/migrations that a test may edit.
const copies: string[] = [];
async function copyOfMigrations(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
  copies.push(dir);
  await cp(MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}
afterEach(async () => {
  await Promise.all(copies.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

type Row = {
  id: string;
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
  applied_steps_count: number;
};
const bookkeeping = (url: string) => query<Row>(url, 'SELECT * FROM "_prisma_migrations" ORDER BY started_at');

describe('applyMigrations', () => {
  it('applies every migration to a fresh database and records each the way Prisma does', async () => {
    const url = await createEmptyTestDatabase();
    const names = await migrationNamesOnDisk();

    expect(await applyMigrations(url)).toEqual(names);

    const rows = await bookkeeping(url);
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    for (const row of rows) {
      const script = await readFile(join(MIGRATIONS_DIR, row.migration_name, 'migration.sql'));
      expect(row.checksum).toBe(createHash('sha256').update(script).digest('hex'));
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row).toMatchObject({ applied_steps_count: 1, rolled_back_at: null, logs: null });
      expect(row.finished_at).toBeInstanceOf(Date);
    }
    const columns = await query(
      url,
      `SELECT column_name, data_type, character_maximum_length AS length, is_nullable FROM information_schema.columns
       WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(columns.map((c) => Object.values(c).join(' '))).toEqual([
      'id character varying 36 NO',
      'checksum character varying 64 NO',
      'finished_at timestamp with time zone  YES',
      'migration_name character varying 255 NO',
      'logs text  YES',
      'rolled_back_at timestamp with time zone  YES',
      'started_at timestamp with time zone  NO',
      'applied_steps_count integer  NO',
    ]);
    expect(await query(url, `SELECT 1 FROM information_schema.tables WHERE table_name = 'attestations'`)).toHaveLength(
      1,
    );
  });

  it('applies nothing the second time, and only a newly added migration after that', async () => {
    const url = await createEmptyTestDatabase();
    const dir = await copyOfMigrations();
    await applyMigrations(url, undefined, dir);

    expect(await applyMigrations(url, undefined, dir)).toEqual([]);

    await mkdir(join(dir, '29990101000000_add_note'));
    await writeFile(
      join(dir, '29990101000000_add_note', 'migration.sql'),
      'ALTER TABLE "accounts" ADD COLUMN "note" TEXT;\n',
    );
    expect(await applyMigrations(url, undefined, dir)).toEqual(['29990101000000_add_note']);
    expect(await bookkeeping(url)).toHaveLength((await migrationNamesOnDisk()).length + 1);
  });

  it('refuses to run when an applied migration file was edited, but accepts other line endings', async () => {
    const url = await createEmptyTestDatabase();
    const dir = await copyOfMigrations();
    await applyMigrations(url, undefined, dir);
    const [first] = await migrationNamesOnDisk(dir);
    const file = join(dir, first!, 'migration.sql');

    await writeFile(file, (await readFile(file, 'utf8')).replaceAll('\n', '\r\n'));
    expect(await applyMigrations(url, undefined, dir)).toEqual([]);

    await appendFile(file, 'CREATE INDEX "sneaky" ON "accounts"("created_at");\n');
    await expect(applyMigrations(url, undefined, dir)).rejects.toThrow(
      `migration ${first} was edited after it was applied`,
    );
  });

  it('refuses to run while a migration is recorded as failed', async () => {
    const url = await createEmptyTestDatabase();
    await applyMigrations(url);
    await query(
      url,
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, logs) VALUES ('f', 'x', '29990101000000_half', 'boom')`,
    );

    await expect(applyMigrations(url)).rejects.toThrow('migration 29990101000000_half is recorded as failed');
  });

  it('rolls a failing migration back completely and applies it once it is fixed', async () => {
    const url = await createEmptyTestDatabase();
    const dir = await copyOfMigrations();
    const broken = join(dir, '29990101000000_broken');
    await mkdir(broken);
    await writeFile(join(broken, 'migration.sql'), 'CREATE TABLE "half_done" ("id" INTEGER);\nSELECT 1 / 0;\n');

    await expect(applyMigrations(url, undefined, dir)).rejects.toThrow(
      'migration 29990101000000_broken failed and was rolled back: division by zero',
    );
    expect(await query(url, `SELECT 1 FROM information_schema.tables WHERE table_name = 'half_done'`)).toEqual([]);
    const failed = (await bookkeeping(url)).find((r) => r.migration_name === '29990101000000_broken');
    expect(failed).toMatchObject({ finished_at: null, logs: 'division by zero', applied_steps_count: 0 });
    expect(failed?.rolled_back_at).toBeInstanceOf(Date);

    await writeFile(join(broken, 'migration.sql'), 'CREATE TABLE "half_done" ("id" INTEGER);\n');
    expect(await applyMigrations(url, undefined, dir)).toEqual(['29990101000000_broken']);
  });

  it('lets replicas booting at once all succeed while each migration is applied once', async () => {
    const url = await createEmptyTestDatabase();
    const names = await migrationNamesOnDisk();

    const results = await Promise.all([1, 2, 3].map(() => applyMigrations(url)));

    expect(results.flat().sort()).toEqual(names);
    expect(results.filter((applied) => applied.length === 0)).toHaveLength(2);
    expect(await bookkeeping(url)).toHaveLength(names.length);
  });
});

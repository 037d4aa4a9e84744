import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import pg from 'pg';

const MIGRATIONS_DIR = resolve(import.meta.dirname, '../../../../prisma/migrations');

// The key `prisma migrate deploy` locks, so our applier and Prisma's exclude each other too.
const PRISMA_MIGRATE_LOCK = 72707369;

// Prisma's own DDL for its bookkeeping table (schema engine, PostgreSQL flavour).
const CREATE_BOOKKEEPING_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

type MigrationFile = { name: string; script: string; checksum: string };
type BookkeepingRow = {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
};

/** SHA-256 of a migration script as lower-case hex, the value Prisma stores in `_prisma_migrations.checksum`. */
function migrationChecksum(script: string): string {
  return createHash('sha256').update(script).digest('hex');
}

/** Reads the migration folders (Prisma's format: `<name>/migration.sql`) in name order. */
export async function readMigrations(dir: string = MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const script = await readFile(join(dir, name, 'migration.sql'), 'utf8');
      return { name, script, checksum: migrationChecksum(script) };
    }),
  );
}

// Prisma accepts a checksum taken with either line ending, because git may rewrite them on checkout.
function scriptMatches(script: string, checksum: string): boolean {
  const variants = [script, script.replaceAll('\r\n', '\n'), script.replaceAll('\r\n', '\n').replaceAll('\n', '\r\n')];
  return variants.some((v) => migrationChecksum(v) === checksum);
}

/** Applies pending migrations from prisma/migrations, keeping Prisma's bookkeeping; returns the names applied. */
export async function applyMigrations(
  databaseUrl: string,
  log: (line: string) => void = () => {},
  migrationsDir: string = MIGRATIONS_DIR,
): Promise<string[]> {
  const migrations = await readMigrations(migrationsDir);
  const lock = await lockMigrations(databaseUrl, log);
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    await client.query(CREATE_BOOKKEEPING_TABLE);
    const { rows } = await client.query<BookkeepingRow>(
      `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`,
    );
    const applied = checkHistory(migrations, rows, log);
    const appliedNow: string[] = [];
    for (const migration of migrations.filter((m) => !applied.has(m.name))) {
      await applyOne(client, migration);
      log(`applied migration ${migration.name}`);
      appliedNow.push(migration.name);
    }
    return appliedNow;
  } finally {
    await client.end();
    await lock.release();
  }
}

/**
 * Takes the migration lock as a transaction-level lock held by an open transaction on a connection of its own, so
 * it holds through a transaction-mode pooler too (a session-level one would stay with whichever server connection
 * took it); it goes with that transaction, at `release()` or when the connection dies.
 */
async function lockMigrations(databaseUrl: string, log: (line: string) => void): Promise<{ release(): Promise<void> }> {
  const holder = new pg.Client({ connectionString: databaseUrl });
  try {
    await holder.connect();
    await holder.query('BEGIN');
    const { rows } = await holder.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [
      PRISMA_MIGRATE_LOCK,
    ]);
    if (!rows[0]?.locked) {
      log('another process is migrating this database; waiting for it to finish');
      await holder.query('SELECT pg_advisory_xact_lock($1)', [PRISMA_MIGRATE_LOCK]);
    }
  } catch (error) {
    await holder.end().catch(() => undefined);
    throw error;
  }
  // nothing to undo at release: a failed COMMIT (the connection died) has released the lock already
  const commit = () => holder.query('COMMIT').catch(() => undefined);
  return { release: () => commit().then(() => holder.end().catch(() => undefined)) };
}

// Returns the names already applied; throws where Prisma's `migrate deploy` would refuse, and on edited files.
function checkHistory(migrations: MigrationFile[], rows: BookkeepingRow[], log: (line: string) => void): Set<string> {
  const files = new Map(migrations.map((m) => [m.name, m]));
  const applied = new Set<string>();
  for (const row of rows) {
    if (row.rolled_back_at !== null) continue;
    if (row.finished_at === null) {
      throw new Error(
        `migration ${row.migration_name} is recorded as failed in _prisma_migrations; fix the database by hand, ` +
          `then mark it with \`prisma migrate resolve --rolled-back ${row.migration_name}\` (or --applied)`,
      );
    }
    const file = files.get(row.migration_name);
    if (!file) {
      // A newer release may have migrated this database; its migrations are not ours to judge.
      log(`migration ${row.migration_name} is applied but not present in ${MIGRATIONS_DIR}`);
    } else if (!scriptMatches(file.script, row.checksum)) {
      throw new Error(
        `migration ${row.migration_name} was edited after it was applied (checksum ${row.checksum} in the database, ` +
          `${file.checksum} on disk); restore the file and put the change in a new migration`,
      );
    }
    applied.add(row.migration_name);
  }
  return applied;
}

// One transaction per migration: a failing script leaves neither schema changes nor a bookkeeping row behind.
async function applyOne(client: pg.Client, migration: MigrationFile): Promise<void> {
  const id = randomUUID();
  await client.query('BEGIN');
  try {
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, clock_timestamp())`,
      [id, migration.checksum, migration.name],
    );
    await client.query(migration.script);
    await client.query(
      `UPDATE "_prisma_migrations" SET applied_steps_count = applied_steps_count + 1, finished_at = clock_timestamp() WHERE id = $1`,
      [id],
    );
    await client.query('COMMIT');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Bookkeeping of the failure is best effort: the script's own error is the one worth reporting.
    await client
      .query('ROLLBACK')
      .then(() => recordRolledBack(client, id, migration, message))
      .catch(() => {});
    throw new Error(`migration ${migration.name} failed and was rolled back: ${message}`, { cause: error });
  }
}

// Keeps the failure's message for operators, marked rolled back (it was) so neither we nor Prisma refuse to retry.
async function recordRolledBack(
  client: pg.Client,
  id: string,
  migration: MigrationFile,
  message: string,
): Promise<void> {
  await client.query(
    `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, logs, started_at, rolled_back_at)
     VALUES ($1, $2, $3, $4, clock_timestamp(), clock_timestamp())`,
    [id, migration.checksum, migration.name, message],
  );
}

import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { applyMigrations } from '../../src/db/migrate.ts';
import { createEmptyTestDatabase } from '../support/database.ts';

const MIGRATIONS_DIR = resolve(import.meta.dirname, '../../../../prisma/migrations');
const MIGRATION = '20261125203728_account_limits';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe(`migration ${MIGRATION} on a database with accounts`, () => {
  it('keeps lookalike names, keys all but the oldest by id, marks sign-ups, and sums each account’s use', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
    const later = await mkdtemp(join(tmpdir(), 'migrations-later-'));
    dirs.push(dir, later);
    await cp(MIGRATIONS_DIR, dir, { recursive: true });
    const pending = (await readdir(dir, { withFileTypes: true }))
      .filter((e) => e.isDirectory() && e.name >= MIGRATION)
      .map((e) => e.name);
    for (const name of pending) await rename(join(dir, name), join(later, name));
    const url = await createEmptyTestDatabase();
    await applyMigrations(url, undefined, dir);

    // raw SQL on purpose: the rows are seeded in the schema from before the migration, which the typed database
    // (today's schema) cannot write, and read back across it
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const ids = { upper: randomUUID(), lower: randomUUID(), wide: randomUUID(), signup: randomUUID() };
      const accounts: Array<[string, string, number]> = [
        [ids.upper, 'ACME', 3],
        [ids.lower, 'acme', 2],
        [ids.wide, 'ＡＣＭＥ', 1],
        [ids.signup, 'Opened', 0],
      ];
      for (const [id, name, daysAgo] of accounts)
        await db.query(`INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, now() - $3 * interval '1 day')`, [
          id,
          name,
          daysAgo,
        ]);
      await db.query(
        `INSERT INTO audit_entries (account_id, at, action, resource, outcome, details, prev_hash, hash)
         VALUES ($1, now(), 'account.created', 'account:x', 'success', '{"via":"signup"}', repeat('0', 64), repeat('1', 64))`,
        [ids.signup],
      );
      for (const used of [3, 4]) {
        const key = randomUUID();
        await db.query(
          `INSERT INTO api_keys (id, account_id, prefix, secret_hash, tier) VALUES ($1, $2, $3, '\\x00', 'free')`,
          [key, ids.upper, key.replaceAll('-', '').slice(0, 12)],
        );
        await db.query(`INSERT INTO monthly_usage (api_key_id, period, onchain_used) VALUES ($1, '2026-11', $2)`, [
          key,
          used,
        ]);
      }

      for (const name of pending) await rename(join(later, name), join(dir, name));
      expect(await applyMigrations(url, undefined, dir)).toContain(MIGRATION);

      const rows = await db.query<{ id: string; name: string; name_key: string; created_by: string }>(
        `SELECT id, name, name_key, created_by FROM accounts ORDER BY created_at`,
      );
      expect(rows.rows).toEqual([
        { id: ids.upper, name: 'ACME', name_key: 'acme', created_by: 'cli' },
        { id: ids.lower, name: 'acme', name_key: `acme#${ids.lower}`, created_by: 'cli' },
        { id: ids.wide, name: 'ＡＣＭＥ', name_key: `acme#${ids.wide}`, created_by: 'cli' },
        { id: ids.signup, name: 'Opened', name_key: 'opened', created_by: 'dashboard' },
      ]);
      const usage = await db.query(`SELECT account_id, period, onchain_used FROM account_monthly_usage`);
      expect(usage.rows).toEqual([{ account_id: ids.upper, period: '2026-11', onchain_used: 7 }]);
      // the name key is unique: a fourth "acme" cannot be inserted
      await expect(
        db.query(`INSERT INTO accounts (id, name, name_key) VALUES ($1, 'aCmE', 'acme')`, [randomUUID()]),
      ).rejects.toThrow(/accounts_name_key_key/);
    } finally {
      await db.end();
    }
  }, 60_000);
});

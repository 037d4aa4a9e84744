import { systemClock } from '../src/clock.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createDatabase } from '../src/db/database.ts';
import { createPool } from '../src/db/sql.ts';
import { createKeyService } from '../src/keys/service.ts';

/** Migrates the database at `databaseUrl` and makes `count` enterprise keys of one account there. */
export async function enterpriseKeys(databaseUrl: string, count: number, account: string): Promise<string[]> {
  const pool = createPool(databaseUrl, 1);
  try {
    await applyMigrations(databaseUrl);
    const service = createKeyService(createDatabase(pool), systemClock);
    const keys: string[] = [];
    for (let i = 0; i < count; i++) keys.push((await service.create({ tier: 'enterprise', account })).key);
    return keys;
  } finally {
    await pool.end();
  }
}

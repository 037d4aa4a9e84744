import { systemClock } from '../src/clock.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createPrisma } from '../src/db/prisma.ts';
import { createPool } from '../src/db/sql.ts';
import { createKeyService } from '../src/keys/service.ts';

/** Migrates the database at `databaseUrl` and makes `count` enterprise keys of one account there. */
export async function enterpriseKeys(databaseUrl: string, count: number, account: string): Promise<string[]> {
  const prisma = createPrisma(databaseUrl);
  const pool = createPool(databaseUrl, 1);
  try {
    await applyMigrations(databaseUrl);
    const service = createKeyService(prisma, pool, systemClock);
    const keys: string[] = [];
    for (let i = 0; i < count; i++) keys.push((await service.create({ tier: 'enterprise', account })).key);
    return keys;
  } finally {
    await prisma.$disconnect();
    await pool.end();
  }
}

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { createDatabase, type Db } from '../../src/db/database.ts';
import { createPool } from '../../src/db/sql.ts';

export type { Db };

/**
 * A test's typed reads and fixtures: the service's own Kysely database on a pool (camelCase names, checked by the
 * compiler against schema.prisma's tables), e.g. `db.selectFrom('attestations').select('uid').where(...)`. Raw SQL
 * (support/sql.ts) is only for what this cannot say: catalogs, migrations, sequences, faults planted on purpose.
 * Closing the pool is its owner's: never `destroy()` a database made here.
 */
export function testDb(pool: pg.Pool): Db {
  return createDatabase(pool);
}

/**
 * The same on a small pool of its own at `url`, for a test whose service runs in a child process: `destroy()` it
 * when done (that ends its pool).
 */
export function openTestDb(url: string): Db {
  return createDatabase(createPool(url, 2));
}

/** Opens an account row directly (a fixture: the services open theirs through keys or the dashboard); its id. */
export async function insertAccount(
  db: Db,
  account: { name: string; id?: string; nameKey?: string; createdBy?: 'cli' | 'dashboard'; vouched?: boolean },
): Promise<string> {
  // the name as uniqueness sees it: lower case is enough for the ASCII names of fixtures
  const { id = randomUUID(), name, nameKey = name.toLowerCase(), ...rest } = account;
  await db
    .insertInto('accounts')
    .values({ id, name, nameKey, ...rest })
    .execute();
  return id;
}

/** Makes a user a member of an account directly (a fixture: members join through invitations). */
export async function insertMember(db: Db, member: { accountId: string; userId: string; role: string }): Promise<void> {
  await db
    .insertInto('members')
    .values({ id: randomUUID(), ...member })
    .execute();
}

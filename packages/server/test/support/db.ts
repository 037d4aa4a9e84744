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

/** The account's audit entries, oldest first: all of them, or those of one action. */
export function auditEntriesOf(db: Db, accountId: string, action?: string) {
  let query = db.selectFrom('auditEntries').selectAll().where('accountId', '=', accountId);
  if (action !== undefined) query = query.where('action', '=', action);
  return query.orderBy('id').execute();
}

/** The account's newest audit entry: its action and details. */
export async function lastAuditEntry(db: Db, accountId: string) {
  return db
    .selectFrom('auditEntries')
    .select(['action', 'details'])
    .where('accountId', '=', accountId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** A subscription of the account (a fixture: secret all zeros), made at `createdAt`; its id. */
export async function insertSubscription(db: Db, accountId: string, createdAt = new Date()): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('webhookSubscriptions')
    .values({
      id,
      accountId,
      url: `https://hooks.example.com/${id}`,
      events: ['attestation.created'],
      secret: '0'.repeat(64),
      createdAt,
    })
    .execute();
  return id;
}

/** An `attestation.created` event of the account and its delivery to `subscriptionId` in `state`; the delivery's id. */
export async function insertDelivery(
  db: Db,
  fields: { accountId: string; subscriptionId: string; state: string; attempts: number; createdAt?: Date },
): Promise<string> {
  const { accountId, subscriptionId, state, attempts, createdAt = new Date() } = fields;
  const [eventId, id] = [randomUUID(), randomUUID()];
  await db
    .insertInto('webhookEvents')
    .values({ id: eventId, accountId, type: 'attestation.created', body: '{}', createdAt })
    .execute();
  await db
    .insertInto('webhookDeliveries')
    .values({ id, eventId, subscriptionId, state, attempts, createdAt })
    .execute();
  return id;
}

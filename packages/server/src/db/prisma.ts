import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient, type Prisma } from '../generated/prisma/client.ts';
import { boundedPoolOptions, type DatabaseTimeouts } from './sql.ts';

/** The Prisma client every service and store receives. */
export type Db = PrismaClient;

/** The client inside `db.$transaction(async (tx) => …)`; stores accept `Db | Tx` so the caller owns the boundary. */
export type Tx = Prisma.TransactionClient;

/**
 * Builds a Prisma client on the `pg` driver adapter (Prisma 7: no query engine binary), whose pool handles a
 * connection the server drops (a restart, a failover) as an error, not a crash. `timeouts` bound its waits as the pg
 * pool's (db/sql.ts); `max` is its share of the process's connections (db/pool-budget.ts).
 */
export function createPrisma(databaseUrl: string, timeouts?: DatabaseTimeouts, max = 4): Db {
  const ignore = () => undefined; // the failing query reports the error; the pool reconnects for the next one
  const options = { connectionString: databaseUrl, max, ...boundedPoolOptions(timeouts) };
  return new PrismaClient({ adapter: new PrismaPg(options, { onPoolError: ignore, onConnectionError: ignore }) });
}

import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient, type Prisma } from '../generated/prisma/client.ts';
import { createPool } from './sql.ts';

/** The Prisma client every service and store receives. */
export type Db = PrismaClient;

/** The client inside `db.$transaction(async (tx) => …)`; stores accept `Db | Tx` so the caller owns the boundary. */
export type Tx = Prisma.TransactionClient;

/**
 * Builds a Prisma client on the `pg` driver adapter (Prisma 7: no query engine binary), over a pool of ours, so
 * that a connection the server drops (a restart, a failover) is an error we handle, not a crash.
 */
export function createPrisma(databaseUrl: string): Db {
  return new PrismaClient({ adapter: new PrismaPg(createPool(databaseUrl, 4)) });
}

import type { Db } from '../db/database.ts';

/** An account's keys, oldest first, with their on-chain use in `period` (0 when none). */
export async function keysWithUsage(db: Db, accountId: string, period: string) {
  return db
    .selectFrom('apiKeys as k')
    .leftJoin('monthlyUsage as u', (join) => join.onRef('u.apiKeyId', '=', 'k.id').on('u.period', '=', period))
    .select(['k.prefix', 'k.name', 'k.tier', 'k.revokedAt'])
    .select((eb) => eb.fn.coalesce('u.onchainUsed', eb.lit(0)).as('used'))
    .where('k.accountId', '=', accountId)
    .orderBy('k.createdAt', 'asc')
    .execute();
}

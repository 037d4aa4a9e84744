import type { Db } from '../db/database.ts';

/**
 * Adds `count` to an account's on-chain counter for `period` unless that passes `cap`: the new total, or undefined when
 * it would. The row stays locked until the transaction ends, so an account's reservations go one at a time.
 */
export async function addToAccount(
  db: Db,
  accountId: string,
  period: string,
  count: number,
  cap: number,
): Promise<number | undefined> {
  const row = await db
    .insertInto('accountMonthlyUsage')
    .values({ accountId, period, onchainUsed: count })
    .onConflict((oc) =>
      oc
        .columns(['accountId', 'period'])
        .doUpdateSet((eb) => ({
          onchainUsed: eb('accountMonthlyUsage.onchainUsed', '+', eb.ref('excluded.onchainUsed')),
        }))
        .where((eb) => eb(eb('accountMonthlyUsage.onchainUsed', '+', eb.ref('excluded.onchainUsed')), '<=', cap)),
    )
    .returning('onchainUsed')
    .executeTakeFirst();
  return row?.onchainUsed;
}

/** Adds `count` to a key's on-chain counter for `period` unless that passes `cap`: the new total, or undefined. */
export async function addToKey(
  db: Db,
  apiKeyId: string,
  period: string,
  count: number,
  cap: number,
): Promise<number | undefined> {
  const row = await db
    .insertInto('monthlyUsage')
    .values({ apiKeyId, period, onchainUsed: count })
    .onConflict((oc) =>
      oc
        .columns(['apiKeyId', 'period'])
        .doUpdateSet((eb) => ({ onchainUsed: eb('monthlyUsage.onchainUsed', '+', eb.ref('excluded.onchainUsed')) }))
        .where((eb) => eb(eb('monthlyUsage.onchainUsed', '+', eb.ref('excluded.onchainUsed')), '<=', cap)),
    )
    .returning('onchainUsed')
    .executeTakeFirst();
  return row?.onchainUsed;
}

/** Takes `count` back from an account's counter (never below 0). */
export async function takeFromAccount(db: Db, accountId: string, period: string, count: number): Promise<void> {
  await db
    .updateTable('accountMonthlyUsage')
    .set((eb) => ({ onchainUsed: eb.fn('greatest', [eb('onchainUsed', '-', count), eb.lit(0)]) }))
    .where('accountId', '=', accountId)
    .where('period', '=', period)
    .execute();
}

/** Takes `count` back from a key's counter (never below 0). */
export async function takeFromKey(db: Db, apiKeyId: string, period: string, count: number): Promise<void> {
  await db
    .updateTable('monthlyUsage')
    .set((eb) => ({ onchainUsed: eb.fn('greatest', [eb('onchainUsed', '-', count), eb.lit(0)]) }))
    .where('apiKeyId', '=', apiKeyId)
    .where('period', '=', period)
    .execute();
}

/** What a key has used in `period` (0 before its first reservation). */
export async function keyUsed(db: Db, apiKeyId: string, period: string): Promise<number> {
  const row = await db
    .selectFrom('monthlyUsage')
    .select('onchainUsed')
    .where('apiKeyId', '=', apiKeyId)
    .where('period', '=', period)
    .executeTakeFirst();
  return row?.onchainUsed ?? 0;
}

/** What an account's keys together have used in `period`. */
export async function accountUsed(db: Db, accountId: string, period: string): Promise<number> {
  const row = await db
    .selectFrom('accountMonthlyUsage')
    .select('onchainUsed')
    .where('accountId', '=', accountId)
    .where('period', '=', period)
    .executeTakeFirst();
  return row?.onchainUsed ?? 0;
}

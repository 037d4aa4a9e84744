import type { Db } from '../db/database.ts';

interface StoredSecrets {
  id: string;
  secret: string;
  previousSecret: string | null;
}

/** Subscriptions' stored secrets, by id after `after` (deleted ones too). */
export async function storedSecretsPage(db: Db, after: string | undefined, limit: number): Promise<StoredSecrets[]> {
  let query = db.selectFrom('webhookSubscriptions').select(['id', 'secret', 'previousSecret']);
  if (after !== undefined) query = query.where('id', '>', after);
  return query.orderBy('id').limit(limit).execute();
}

/** Stores `to` where the row still holds `from` (a rotation in between wins); whether it did. */
export async function replaceStoredSecrets(
  db: Db,
  from: StoredSecrets,
  to: Omit<StoredSecrets, 'id'>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhookSubscriptions')
    .set(to)
    .where('id', '=', from.id)
    .where('secret', '=', from.secret)
    .where('previousSecret', 'is not distinct from', from.previousSecret)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

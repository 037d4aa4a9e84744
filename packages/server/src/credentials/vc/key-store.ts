import type { JsonWebKey } from 'node:crypto';
import type { Db } from '../../db/database.ts';

/** A credential signing key as stored: its public JWK, and its private JWK sealed under SERVICE_SECRET. */
export interface StoredCredentialKey {
  kid: string;
  publicJwk: JsonWebKey;
  privateJwkSealed: string;
  createdAt: Date;
}

/** Every key not retired, newest first: the first signs, all are published. */
export async function liveKeys(db: Db): Promise<StoredCredentialKey[]> {
  const rows = await db
    .selectFrom('credentialKeys')
    .select(['kid', 'publicJwk', 'privateJwkSealed', 'createdAt'])
    .where('retiredAt', 'is', null)
    .orderBy('createdAt', 'desc')
    .orderBy('kid', 'desc')
    .execute();
  return rows.map((row) => ({ ...row, publicJwk: row.publicJwk as JsonWebKey }));
}

export async function insertKey(db: Db, key: Omit<StoredCredentialKey, 'createdAt'>, at: Date): Promise<void> {
  await db
    .insertInto('credentialKeys')
    .values({
      kid: key.kid,
      publicJwk: JSON.stringify(key.publicJwk),
      privateJwkSealed: key.privateJwkSealed,
      createdAt: at,
    })
    .execute();
}

/** Retires a key: it signs and is published no more. False when no live key has this kid. */
export async function retireKey(db: Db, kid: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('credentialKeys')
    .set({ retiredAt: at })
    .where('kid', '=', kid)
    .where('retiredAt', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

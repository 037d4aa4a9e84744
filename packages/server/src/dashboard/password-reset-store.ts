import type { Db } from '../db/database.ts';

/** The stored form of a reset token's identifier: a hash (password-reset.ts), never the token. */
export const HASHED_RESET_PREFIX = 'reset-password-sha256:';
/** better-auth's own form, `reset-password:<token>`: rows from before hashing, until the migration converts them. */
const PLAIN_RESET_PREFIX = 'reset-password:';

/** Deletes the person's reset tokens issued before `kept` (better-auth writes each as a `verifications` row). */
export async function deleteOlderResetTokens(
  db: Db,
  kept: { id: string; userId: string; createdAt: Date },
): Promise<void> {
  await db
    .deleteFrom('verifications')
    .where('value', '=', kept.userId)
    .where((eb) =>
      eb.or([eb('identifier', 'like', `${HASHED_RESET_PREFIX}%`), eb('identifier', 'like', `${PLAIN_RESET_PREFIX}%`)]),
    )
    .where('id', '<>', kept.id)
    .where('createdAt', '<=', kept.createdAt)
    .execute();
}

/** Deletes every reset token of the person: one was used, the rest end with it. */
export async function deleteResetTokens(db: Db, userId: string): Promise<void> {
  await db
    .deleteFrom('verifications')
    .where('value', '=', userId)
    .where((eb) =>
      eb.or([eb('identifier', 'like', `${HASHED_RESET_PREFIX}%`), eb('identifier', 'like', `${PLAIN_RESET_PREFIX}%`)]),
    )
    .execute();
}

/** Marks a passkey just registered when its person's address is still unconfirmed. */
export async function markPasskeyIfUnconfirmed(db: Db, passkeyId: string, userId: string): Promise<void> {
  await db
    .updateTable('passkeys')
    .set({ registeredUnconfirmed: true })
    .where('id', '=', passkeyId)
    .where('userId', '=', userId)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('users')
          .select('users.id')
          .where('users.id', '=', userId)
          .where('users.emailVerified', '=', false),
      ),
    )
    .execute();
}

/** Deletes the person's passkeys registered while their address was unconfirmed; returns how many. */
export async function deleteUnconfirmedPasskeys(db: Db, userId: string): Promise<number> {
  const result = await db
    .deleteFrom('passkeys')
    .where('userId', '=', userId)
    .where('registeredUnconfirmed', '=', true)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

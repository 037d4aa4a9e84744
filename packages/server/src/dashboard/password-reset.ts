import { createHash } from 'node:crypto';
import type { Db } from '../db/database.ts';
import type { Logger } from '../log.ts';
import {
  HASHED_RESET_PREFIX,
  deleteOlderResetTokens,
  deleteResetTokens,
  deleteUnconfirmedPasskeys,
  markPasskeyIfUnconfirmed,
} from './password-reset-store.ts';

// A reset token is a credential: stored hashed, one alive per person, and its use ends the others. A reset also
// proves the mailbox, so it removes passkeys that someone may have added before the address was confirmed
// (docs/decisions.md, "Secrets at rest").

/**
 * better-auth's `verification.storeIdentifier`: `reset-password:<token>` is stored and looked up as
 * `reset-password-sha256:<hex SHA-256 of it>`. The prefix differs from better-auth's own, so its fallback lookup of
 * the plain identifier never matches a hashed row (a hash read from the database is no link). The migration that
 * converted pending tokens computes the same hash in SQL.
 */
export const RESET_TOKEN_STORAGE = {
  default: 'plain' as const,
  overrides: { 'reset-password:': { hash: async (identifier: string) => hashResetIdentifier(identifier) } },
};

function hashResetIdentifier(identifier: string): string {
  return HASHED_RESET_PREFIX + createHash('sha256').update(identifier, 'utf8').digest('hex');
}

/** After better-auth stores a verification row: a new reset token ends the person's older ones. */
export async function onVerificationCreated(
  db: Db,
  row: { id: string; identifier: string; value: string; createdAt: Date },
): Promise<void> {
  if (!row.identifier.startsWith(HASHED_RESET_PREFIX)) return;
  await deleteOlderResetTokens(db, { id: row.id, userId: row.value, createdAt: row.createdAt });
}

/** After a password reset: the person's other reset tokens end, and passkeys added while unconfirmed go. */
export async function onPasswordReset(db: Db, log: Logger, userId: string): Promise<void> {
  await deleteResetTokens(db, userId);
  const removed = await deleteUnconfirmedPasskeys(db, userId);
  if (removed > 0) log.info({ component: 'auth', userId, removed }, 'passkeys added before confirmation removed');
}

/** After a passkey registration answered: marks the passkey when its person's address is unconfirmed. */
export async function onPasskeyRegistered(db: Db, returned: unknown): Promise<void> {
  const passkey = returned as { id?: unknown; userId?: unknown } | null | undefined;
  if (typeof passkey?.id !== 'string' || typeof passkey.userId !== 'string') return;
  await markPasskeyIfUnconfirmed(db, passkey.id, passkey.userId);
}

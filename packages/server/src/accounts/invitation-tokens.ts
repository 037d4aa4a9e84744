import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { invitationByTokenHash } from './invitation-store.ts';

/** A new invitation token: 32 random bytes, base64url (the link's last path segment). */
export function newInvitationToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the invitations table keeps to find a token: its SHA-256 (the token itself is never stored in clear). */
export function tokenHash(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** The pending invitation of this token: not accepted, not revoked, not expired at `now`; undefined otherwise. */
export async function findPendingInvitation(db: Db, token: string, now: Date) {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
  const row = await invitationByTokenHash(db, tokenHash(token));
  if (!row || row.acceptedAt || row.revokedAt || row.expiresAt <= now) return undefined;
  return row;
}

/** Whether a sign-up for `email` may create its user while sign-up is closed: it carries a pending invitation for it. */
export async function invitationAllowsSignUp(db: Db, token: string | undefined, email: string, now: Date) {
  if (token === undefined) return false;
  const row = await findPendingInvitation(db, token, now);
  return row !== undefined && (row.email === null || row.email.toLowerCase() === email);
}

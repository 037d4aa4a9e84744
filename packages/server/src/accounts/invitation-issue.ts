import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import type { ServiceSecrets } from '../system/service-secret.ts';
import { tokenSealer, type TokenSealer } from './invitation-seal.ts';
import { countPendingInvitations, insertInvitation, type InvitationKind } from './invitation-store.ts';
import { newInvitationToken, tokenHash } from './invitation-tokens.ts';

/**
 * How long a member's or support invitation link works, and the owner setup link (docs/decisions.md, "Dashboard
 * sign-in").
 */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;
export const SETUP_TTL_MS = 24 * 3600_000;
/** Where an invitation link points: its token is the segment after it (a credential, never logged). */
export const INVITATION_PATH = '/dashboard/invite/';
/** Pending member invitations an account may hold at once (docs/decisions.md, "Caps per account"). */
export const MAX_PENDING_INVITATIONS = 50;

/** Refuses a new member invitation when the account holds the most pending ones; the caller has locked its members. */
export async function requireInvitationRoom(tx: Db, accountId: string, now: Date): Promise<void> {
  if ((await countPendingInvitations(tx, accountId, now)) < MAX_PENDING_INVITATIONS) return;
  const message = `at most ${MAX_PENDING_INVITATIONS} pending invitations`;
  throw new AppError('VALIDATION_FAILED', `An account may have ${message}; revoke one first.`, {
    errors: [{ path: '', message }],
  });
}

/** A link to hand over: its invitation's id, the URL, until when it works (ISO 8601). */
export interface InvitationLink {
  id: string;
  url: string;
  expiresAt: string;
}

/** What an invitation grants: its kind, account (none for setup and support), email (none: anyone), role. */
export interface InvitationGrant {
  kind: InvitationKind;
  accountId: string | null;
  email: string | null;
  role: string;
  createdBy: string | null;
}

export interface InvitationIssuer {
  sealer: TokenSealer;
  urlOf(token: string): string;
  /** A new pending invitation in the caller's transaction (which also writes its audit entry). */
  issue(tx: Db, grant: InvitationGrant, ttlMs: number): Promise<InvitationLink>;
}

/**
 * Makes invitation rows and their links, for the dashboard and the CLI alike: the token is kept as its SHA-256 (to
 * find it) and sealed (to show it again).
 */
export function invitationIssuer(deps: { clock: Clock; publicBaseUrl: string; secrets: ServiceSecrets }) {
  const sealer = tokenSealer(deps.secrets);
  const urlOf = (token: string) => `${deps.publicBaseUrl}${INVITATION_PATH}${token}`;
  return {
    sealer,
    urlOf,
    async issue(tx, grant, ttlMs) {
      const token = newInvitationToken();
      const createdAt = new Date(deps.clock.now());
      const expiresAt = new Date(createdAt.getTime() + ttlMs);
      const id = randomUUID();
      await insertInvitation(tx, {
        id,
        ...grant,
        tokenHash: tokenHash(token),
        tokenSealed: sealer.seal(token),
        createdAt,
        expiresAt,
      });
      return { id, url: urlOf(token), expiresAt: expiresAt.toISOString() };
    },
  } satisfies InvitationIssuer;
}

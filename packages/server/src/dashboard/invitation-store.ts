import type { Db, Tx } from '../db/prisma.ts';

/** What an invitation link is for: the first owner's account, a seat in an account, the operator's support team. */
export const INVITATION_KINDS = ['setup', 'member', 'support'] as const;
export type InvitationKind = (typeof INVITATION_KINDS)[number];

export interface NewInvitation {
  id: string;
  kind: InvitationKind;
  tokenHash: Uint8Array<ArrayBuffer>;
  tokenSealed: string;
  accountId: string | null;
  email: string | null;
  role: string;
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** Where a row is still usable at `now`: neither accepted nor revoked, not expired. */
const pendingAt = (now: Date) => ({ acceptedAt: null, revokedAt: null, expiresAt: { gt: now } });

export async function insertInvitation(db: Db | Tx, row: NewInvitation): Promise<void> {
  await db.invitation.create({ data: row, select: { id: true } });
}

/**
 * Marks the invitation used, if it still is pending: one conditional update, so of two concurrent accepts of one
 * link only one changes a row. Returns whether this call did.
 */
export async function markAccepted(tx: Tx, id: string, userId: string, at: Date): Promise<boolean> {
  const { count } = await tx.invitation.updateMany({
    where: { id, ...pendingAt(at) },
    data: { acceptedAt: at, acceptedBy: userId },
  });
  return count === 1;
}

/** Revokes a pending invitation of this account; whether there was one. */
export async function markRevoked(tx: Tx, accountId: string, id: string, at: Date) {
  const [row] = await tx.invitation.updateManyAndReturn({
    where: { id, accountId, kind: 'member', ...pendingAt(at) },
    data: { revokedAt: at },
    select: { id: true, email: true, role: true },
  });
  return row;
}

/** An account's pending member invitations, newest first. */
export async function pendingInvitations(db: Db | Tx, accountId: string, now: Date) {
  return db.invitation.findMany({
    where: { accountId, kind: 'member', ...pendingAt(now) },
    select: { id: true, email: true, role: true, tokenSealed: true, expiresAt: true, createdAt: true },
    orderBy: { createdAt: 'desc' },
  });
}

/** How many member invitations of the account are pending at `now`. */
export async function countPendingInvitations(db: Db | Tx, accountId: string, now: Date): Promise<number> {
  return db.invitation.count({ where: { accountId, kind: 'member', ...pendingAt(now) } });
}

/** The owner setup link still pending, if any (the newest). */
export async function pendingSetupInvitation(tx: Tx, now: Date) {
  return tx.invitation.findFirst({
    where: { kind: 'setup', ...pendingAt(now) },
    select: { id: true, tokenSealed: true, expiresAt: true },
    orderBy: { createdAt: 'desc' },
  });
}

/** Whether anyone is a member of any account yet (the owner setup link is for a database with nobody). */
export async function anyMember(tx: Tx): Promise<boolean> {
  return (await tx.member.findFirst({ select: { id: true } })) !== null;
}

/**
 * Serializes the owner setup link's check-then-create across replicas starting at once, for the transaction's
 * life (a key of its own: no table row is locked).
 */
export async function lockOwnerSetup(tx: Tx): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('dashboard-owner-setup'))`;
}

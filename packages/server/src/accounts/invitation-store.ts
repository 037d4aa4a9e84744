import { sql, type ExpressionBuilder } from 'kysely';
import type { Db, DB } from '../db/database.ts';

/** What an invitation link is for: the first owner's account, a seat in an account, the operator's support team. */
export const INVITATION_KINDS = ['setup', 'member', 'support'] as const;
export type InvitationKind = (typeof INVITATION_KINDS)[number];

interface NewInvitation {
  id: string;
  kind: InvitationKind;
  tokenHash: Buffer;
  tokenSealed: string;
  accountId: string | null;
  email: string | null;
  role: string;
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** Where a row is still usable at `now`: neither accepted nor revoked, not expired. */
const pendingAt = (now: Date) => (eb: ExpressionBuilder<DB, 'invitations'>) =>
  eb.and([eb('acceptedAt', 'is', null), eb('revokedAt', 'is', null), eb('expiresAt', '>', now)]);

export async function insertInvitation(db: Db, row: NewInvitation): Promise<void> {
  await db.insertInto('invitations').values(row).execute();
}

/** The invitation whose token has this hash, whatever its state. */
export async function invitationByTokenHash(db: Db, hash: Buffer) {
  return db.selectFrom('invitations').selectAll().where('tokenHash', '=', hash).executeTakeFirst();
}

/**
 * Marks the invitation used, if it still is pending: one conditional update, so of two concurrent accepts of one
 * link only one changes a row. Returns whether this call did.
 */
export async function markAccepted(tx: Db, id: string, userId: string, at: Date): Promise<boolean> {
  const result = await tx
    .updateTable('invitations')
    .set({ acceptedAt: at, acceptedBy: userId })
    .where('id', '=', id)
    .where(pendingAt(at))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Revokes a pending invitation of this account; whether there was one. */
export async function markRevoked(tx: Db, accountId: string, id: string, at: Date) {
  return tx
    .updateTable('invitations')
    .set({ revokedAt: at })
    .where('id', '=', id)
    .where('accountId', '=', accountId)
    .where('kind', '=', 'member' satisfies InvitationKind)
    .where(pendingAt(at))
    .returning(['id', 'email', 'role'])
    .executeTakeFirst();
}

/** An account's pending member invitations, newest first. */
export async function pendingInvitations(db: Db, accountId: string, now: Date) {
  return db
    .selectFrom('invitations')
    .select(['id', 'email', 'role', 'tokenSealed', 'expiresAt', 'createdAt'])
    .where('accountId', '=', accountId)
    .where('kind', '=', 'member' satisfies InvitationKind)
    .where(pendingAt(now))
    .orderBy('createdAt', 'desc')
    .execute();
}

export async function countPendingInvitations(db: Db, accountId: string, now: Date): Promise<number> {
  const { n } = await db
    .selectFrom('invitations')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('accountId', '=', accountId)
    .where('kind', '=', 'member' satisfies InvitationKind)
    .where(pendingAt(now))
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** The owner setup link still pending, if any (the newest). */
export async function pendingSetupInvitation(tx: Db, now: Date) {
  return tx
    .selectFrom('invitations')
    .select(['id', 'tokenSealed', 'expiresAt'])
    .where('kind', '=', 'setup' satisfies InvitationKind)
    .where(pendingAt(now))
    .orderBy('createdAt', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Whether anyone is a member of any account yet (the owner setup link is for a database with nobody). */
export async function anyMember(tx: Db): Promise<boolean> {
  return (await tx.selectFrom('members').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/**
 * Serializes the owner setup link's check-then-create across replicas starting at once, for the transaction's
 * life (a key of its own: no table row is locked).
 */
export async function lockOwnerSetup(tx: Db): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext('dashboard-owner-setup'))`.execute(tx);
}

/** Whether the `accounts` row in scope has a member. */
const hasMember = (eb: ExpressionBuilder<DB, 'accounts'>) =>
  eb.exists(eb.selectFrom('members as m').select('m.id').whereRef('m.accountId', '=', 'accounts.id'));

/** Accounts the CLI opened that nobody is a member of, by name: what a setup link may take over (at most `limit`). */
export async function memberlessCliAccounts(db: Db, limit: number) {
  return db
    .selectFrom('accounts')
    .select(['id', 'name'])
    .where('createdBy', '=', 'cli')
    .where((eb) => eb.not(hasMember(eb)))
    .orderBy('name')
    .limit(limit)
    .execute();
}

/** An account as a setup link's takeover judges it: its name, who opened it, whether anyone is a member. */
export async function adoptionFacts(tx: Db, accountId: string) {
  return tx
    .selectFrom('accounts')
    .select(['id', 'name', 'createdBy'])
    .select((eb) => hasMember(eb).as('hasMember'))
    .where('id', '=', accountId)
    .executeTakeFirst();
}

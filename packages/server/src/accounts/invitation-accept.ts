import { auditEntry, type RequestOrigin } from '../audit/entry.ts';
import { appendAudit } from '../audit/append.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import type { Logger } from '../log.ts';
import { openAccount } from './service.ts';
import { adoptAccount } from './invitation-adopt.ts';
import { markAccepted, type InvitationKind } from './invitation-store.ts';
import { findPendingInvitation } from './invitation-tokens.ts';
import { countOwners, insertMember } from './member-store.ts';
import { lockAccount } from './store.ts';
import { addressConfirmed, joinSupportTeam } from './user-store.ts';
import { vouchAccountsOwnedBy } from './standing-store.ts';
import { isRole } from './roles.ts';

/** The signed-in person using a link. */
export interface Person {
  id: string;
  email: string;
}

/** A setup link names the account it opens (`accountName`) or the CLI's account it takes over (`accountId`). */
export interface AcceptInput {
  token: string;
  accountName?: string | undefined;
  accountId?: string | undefined;
}

type Pending = NonNullable<Awaited<ReturnType<typeof findPendingInvitation>>>;

/** NOT_FOUND for a link that does not work: it never did, or it was used, revoked or expired (not said which). */
export function linkNotFound(): AppError {
  return notFound('This invitation link (used, revoked or expired)');
}

function invalidInput(path: 'accountName' | 'accountId', message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${path}: ${message}.`, { errors: [{ path, message }] });
}

/** The setup link's choice (open `name`, or take over `id`), or nothing for other links; refused when unclear. */
function setupChoice(kind: InvitationKind, input: AcceptInput): { name: string } | { id: string } | undefined {
  if (kind !== 'setup') {
    if (input.accountId !== undefined) throw invalidInput('accountId', 'only a setup link takes over an account');
    return undefined;
  }
  if (input.accountName !== undefined && input.accountId !== undefined)
    throw invalidInput('accountId', 'name a new account or choose an existing one, not both');
  if (input.accountId !== undefined) return { id: input.accountId };
  if (input.accountName) return { name: input.accountName };
  throw invalidInput('accountName', 'name the account this setup link opens (or choose one the CLI opened)');
}

/**
 * Uses an invitation link as `person`: a setup link opens the account they name with them as owner (or takes over
 * one the CLI opened: invitation-adopt.ts), a member invitation adds them with its role (only for the email it was
 * sent to, or anyone's for an owner link), a support invitation puts them on the support team. The link is marked
 * used in the same transaction as what it grants, so it works once; when the grant fails (a taken name, an account
 * someone owns), the link stays usable.
 */
export async function acceptInvitation(
  deps: { db: Db; clock: Clock; log: Logger },
  person: Person,
  input: AcceptInput,
  origin: RequestOrigin,
): Promise<{ kind: InvitationKind; accountId: string | null }> {
  const now = new Date(deps.clock.now());
  const invitation = await findPendingInvitation(deps.db, input.token, now);
  if (!invitation) throw linkNotFound();
  if (invitation.email !== null && invitation.email.toLowerCase() !== person.email.toLowerCase())
    throw new AppError(
      'FORBIDDEN',
      `This invitation is for ${invitation.email}: sign in with that email address to accept it.`,
    );
  // an address nobody confirmed may be someone else's: it must not collect that person's invitations
  if (invitation.email !== null && !(await addressConfirmed(deps.db, person.id)))
    throw new AppError(
      'FORBIDDEN',
      `Confirm ${person.email} first: open the link mailed to it (the dashboard sends a new one), then accept.`,
      { reason: 'EMAIL_NOT_VERIFIED' },
    );
  const kind = invitation.kind as InvitationKind;
  const setup = setupChoice(kind, input);
  const accountId = await inTransaction(deps.db, async (tx) => {
    if (!(await markAccepted(tx, invitation.id, person.id, now))) throw linkNotFound();
    if (setup && 'id' in setup)
      return adoptAccount(tx, { invitationId: invitation.id, accountId: setup.id, person, at: now }, origin);
    if (setup) {
      const opener = { userId: person.id, email: person.email };
      return (await openAccount(tx, { name: setup.name, plan: 'free', opener, at: now, origin, via: 'setup' }))
        .accountId;
    }
    if (kind === 'member') return joinAccount(tx, invitation, person, now, origin);
    await joinSupportTeam(tx, person.id);
    return null;
  });
  if (kind === 'support')
    deps.log.info({ invitation: invitation.id, userId: person.id }, 'support-team invitation accepted');
  return { kind, accountId };
}

/** Whether the account has an owner, its members locked first so two owner links cannot both find none. */
async function ownedAlready(tx: Db, accountId: string): Promise<boolean> {
  await lockAccount(tx, accountId);
  return (await countOwners(tx, accountId)) > 0;
}

/** A member invitation's grant: the membership with the invited role, audited as the new member's. */
async function joinAccount(tx: Db, invitation: Pending, person: Person, at: Date, origin: RequestOrigin) {
  const { accountId, role } = invitation;
  // an invitation whose account is gone (its reference was cleared) grants nothing
  if (accountId === null || !isRole(role)) throw linkNotFound();
  // an owner link bound to no email (owner-link.ts) is for an account with no owner: once one has joined, it is void
  if (invitation.email === null && role === 'owner' && (await ownedAlready(tx, accountId)))
    throw new AppError('FORBIDDEN', 'This account has an owner already: ask them for an invitation.', {
      reason: 'HAS_OWNER',
    });
  if (!(await insertMember(tx, { accountId, userId: person.id, role })))
    throw new AppError('ALREADY_EXISTS', 'You are a member of this account already.', { id: accountId });
  // a confirmed owner joining stands behind the account (standing.ts)
  if (role === 'owner') await vouchAccountsOwnedBy(tx, person.id);
  await appendAudit(
    tx,
    auditEntry({
      accountId,
      at,
      action: 'member.joined',
      resource: `member:${person.id}`,
      actorMember: { userId: person.id, email: person.email, role },
      origin,
      details: { invitation: invitation.id, role },
    }),
  );
  return accountId;
}

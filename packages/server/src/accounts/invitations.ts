import { auditEntry, type MemberActor, type RequestOrigin } from '../audit/entry.ts';
import { appendAudit } from '../audit/append.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { ServiceSecrets } from '../system/service-secret.ts';
import { acceptInvitation, linkNotFound, type AcceptInput, type Person } from './invitation-accept.ts';
import { adoptableAccounts } from './invitation-adopt.ts';
import {
  INVITATION_TTL_MS,
  invitationIssuer,
  requireInvitationRoom,
  SETUP_TTL_MS,
  type InvitationIssuer,
  type InvitationLink,
} from './invitation-issue.ts';
import {
  anyMember,
  lockOwnerSetup,
  markRevoked,
  pendingInvitations,
  pendingSetupInvitation,
  type InvitationKind,
} from './invitation-store.ts';
import { findPendingInvitation } from './invitation-tokens.ts';
import { memberByEmail } from './member-store.ts';
import { issueOwnerLink } from './owner-link.ts';
import type { Role } from './roles.ts';
import { accountNameOf, lockAccount } from './store.ts';

export { MAX_PENDING_INVITATIONS } from './invitation-issue.ts';

/** An invitation as its link shows it to the person who opens it (before they have signed in). */
interface InvitationView {
  kind: InvitationKind;
  accountName: string | null;
  email: string | null;
  role: string;
  expiresAt: string;
  /** A setup link's: the CLI's accounts nobody is a member of yet, which it may take over instead of opening one. */
  adoptable: Array<{ id: string; name: string }>;
}

/**
 * Mail as invitations send it (mail/service.ts is one): queued in the invitation's transaction, sent by the worker;
 * each answers whether it was queued (not with mail off, nor past the account's hourly bound).
 */
export interface InvitationMail {
  /** Whether mail goes out at all: a member's invitation mail counts against the day's caps only then. */
  on: boolean;
  memberInvitation(
    tx: Db,
    to: string,
    invitation: { accountId: string; accountName: string; role: string; url: string; expiresAt: string },
  ): Promise<boolean>;
  supportInvitation(tx: Db, to: string, invitation: { url: string; expiresAt: string }): Promise<boolean>;
}

export type InvitationService = ReturnType<typeof createInvitationService>;

interface InvitationDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  publicBaseUrl: string;
  secrets: ServiceSecrets;
  mail: InvitationMail;
  /** Counts a member's invitation mail (limits/invitation-mails.ts): 429 RATE_LIMITED past a day's cap. */
  limitInvitationMail?: (sender: { accountId: string; userId: string }) => Promise<void>;
}

interface MemberInvitationInput {
  accountId: string;
  email: string;
  role: Role;
  actor: MemberActor | null;
  origin: RequestOrigin | null;
  /** Mail the link to the address (the default); false: only return it (the CLI's --no-mail). */
  mail?: boolean;
}

/**
 * One-time links into the dashboard: the owner setup link, member invitations (an owner's, or the operator's CLI),
 * owner links of accounts the CLI opened, and support-team invitations (invitation-issue.ts makes the rows).
 */
export function createInvitationService(deps: InvitationDeps) {
  const { db, clock, log } = deps;
  const issuer = invitationIssuer(deps);
  return {
    /**
     * Invites `email` into an account with `role`, audited as the inviting owner's (or the CLI's when no actor);
     * 409 ALREADY_EXISTS when that person is a member already.
     */
    inviteMember: (input: MemberInvitationInput) => inviteMember(deps, issuer, input),

    /** Invites `email` onto the operator's support team (the CLI's `accounts invite --support`). */
    inviteSupport: (email: string, opts: { mail?: boolean } = {}) => inviteSupport(deps, issuer, email, opts),

    /**
     * The owner setup link of a database with no member yet: the pending one (its token is sealed, so a restart
     * prints a usable link again) or a new one, valid 24 h; undefined once anyone is a member.
     */
    ownerSetupLink: () => ownerSetupLink(deps, issuer),

    /** The owner link of an account with no owner yet (owner-link.ts); undefined when it has one. */
    ownerLink: (accountId: string) => issueOwnerLink({ db, clock, issuer }, accountId),

    /** What a link is for, shown before sign-in; NOT_FOUND when it is used, revoked or expired. */
    view: (token: string) => viewInvitation(deps, token),

    /** Uses a link as the signed-in person (see acceptInvitation); the link never works again. */
    accept: (person: Person, input: AcceptInput, origin: RequestOrigin) =>
      acceptInvitation({ db, clock, log }, person, input, origin),

    /** An account's pending member invitations with their links (null when a link can no longer be unsealed). */
    pending: (accountId: string) => pendingWithLinks(deps, issuer, accountId),

    /** Revokes a pending invitation of the owner's account: its link stops working at once. */
    revoke: (input: { accountId: string; id: string; actor: MemberActor; origin: RequestOrigin }) =>
      revokeInvitation(deps, input),
  };
}

/** The service's inviteMember: the row, its audit entry and (unless refused) its mail, in one transaction. */
async function inviteMember(
  deps: InvitationDeps,
  issuer: InvitationIssuer,
  input: MemberInvitationInput,
): Promise<InvitationLink & { mailed: boolean }> {
  const { db, clock, mail } = deps;
  const email = input.email.toLowerCase();
  return inTransaction(db, async (tx) => {
    const existing = await memberByEmail(tx, input.accountId, email);
    if (existing)
      throw new AppError('ALREADY_EXISTS', `${email} is a member of this account already.`, { id: existing });
    await lockAccount(tx, input.accountId); // two invites at once cannot both pass the cap
    await requireInvitationRoom(tx, input.accountId, new Date(clock.now()));
    const row = { kind: 'member' as const, accountId: input.accountId, email, role: input.role };
    const link = await issuer.issue(tx, { ...row, createdBy: input.actor?.userId ?? null }, INVITATION_TTL_MS);
    await appendAudit(
      tx,
      auditEntry({
        accountId: input.accountId,
        at: new Date(clock.now()),
        action: 'member.invited',
        resource: `invitation:${link.id}`,
        actorMember: input.actor,
        origin: input.origin,
        details: { email, role: input.role, expiresAt: link.expiresAt, via: input.actor ? 'dashboard' : 'cli' },
      }),
    );
    if (input.mail === false) return { ...link, mailed: false };
    if (input.actor && mail.on)
      await deps.limitInvitationMail?.({ accountId: input.accountId, userId: input.actor.userId });
    const accountName = (await accountNameOf(tx, input.accountId)) ?? input.accountId;
    const { accountId, role } = input;
    const invitation = { accountId, accountName, role, url: link.url, expiresAt: link.expiresAt };
    return { ...link, mailed: await mail.memberInvitation(tx, email, invitation) };
  });
}

/** The service's inviteSupport: logged, not audited (the support team belongs to no account). */
async function inviteSupport(
  deps: InvitationDeps,
  issuer: InvitationIssuer,
  email: string,
  opts: { mail?: boolean },
): Promise<InvitationLink & { mailed: boolean }> {
  const row = { kind: 'support' as const, accountId: null, email: email.toLowerCase(), role: 'support' };
  const { link, mailed } = await inTransaction(deps.db, async (tx) => {
    const made = await issuer.issue(tx, { ...row, createdBy: null }, INVITATION_TTL_MS);
    if (opts.mail === false) return { link: made, mailed: false };
    const invitation = { url: made.url, expiresAt: made.expiresAt };
    return { link: made, mailed: await deps.mail.supportInvitation(tx, row.email, invitation) };
  });
  // the support team belongs to no account, so no account's audit chain records it; the log does
  deps.log.info({ invitation: link.id, email: row.email }, 'support-team invitation created');
  return { ...link, mailed };
}

/** The service's ownerSetupLink: the pending setup link or a new one, under the owner-setup lock. */
async function ownerSetupLink(deps: InvitationDeps, issuer: InvitationIssuer): Promise<InvitationLink | undefined> {
  const now = new Date(deps.clock.now());
  return inTransaction(deps.db, async (tx) => {
    await lockOwnerSetup(tx);
    if (await anyMember(tx)) return undefined;
    const pending = await pendingSetupInvitation(tx, now);
    const token = pending && issuer.sealer.unseal(pending.tokenSealed);
    if (pending && token)
      return { id: pending.id, url: issuer.urlOf(token), expiresAt: pending.expiresAt.toISOString() };
    return issuer.issue(
      tx,
      { kind: 'setup', accountId: null, email: null, role: 'owner', createdBy: null },
      SETUP_TTL_MS,
    );
  });
}

/** The service's view: a pending link's invitation as its page shows it. */
async function viewInvitation(deps: InvitationDeps, token: string): Promise<InvitationView> {
  const { db, clock } = deps;
  const row = await findPendingInvitation(db, token, new Date(clock.now()));
  if (!row) throw linkNotFound();
  const accountName = row.accountId === null ? undefined : await accountNameOf(db, row.accountId);
  return {
    kind: row.kind as InvitationKind,
    accountName: accountName ?? null,
    email: row.email,
    role: row.role,
    expiresAt: row.expiresAt.toISOString(),
    adoptable: row.kind === ('setup' satisfies InvitationKind) ? await adoptableAccounts(db) : [],
  };
}

/** The service's pending: an account's pending member invitations, each with its link unsealed. */
async function pendingWithLinks(deps: InvitationDeps, issuer: InvitationIssuer, accountId: string) {
  const rows = await pendingInvitations(deps.db, accountId, new Date(deps.clock.now()));
  return rows.map((row) => {
    const token = issuer.sealer.unseal(row.tokenSealed);
    return {
      id: row.id,
      email: row.email,
      role: row.role,
      url: token === undefined ? null : issuer.urlOf(token),
      expiresAt: row.expiresAt.toISOString(),
      createdAt: row.createdAt.toISOString(),
    };
  });
}

/** The service's revoke: marks the invitation revoked and audits it, in one transaction. */
async function revokeInvitation(
  deps: InvitationDeps,
  input: { accountId: string; id: string; actor: MemberActor; origin: RequestOrigin },
) {
  const at = new Date(deps.clock.now());
  return inTransaction(deps.db, async (tx) => {
    const row = await markRevoked(tx, input.accountId, input.id, at);
    if (!row) throw notFound(`Pending invitation ${input.id}`);
    await appendAudit(
      tx,
      auditEntry({
        accountId: input.accountId,
        at,
        action: 'member.invitation_revoked',
        resource: `invitation:${input.id}`,
        actorMember: input.actor,
        origin: input.origin,
        details: { email: row.email, role: row.role },
      }),
    );
    return { id: input.id };
  });
}

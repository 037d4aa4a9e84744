import { appendAudit } from '../audit/append.ts';
import { auditEntry, type RequestOrigin } from '../audit/entry.ts';
import type { Db } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import { adoptionFacts, memberlessCliAccounts } from './invitation-store.ts';
import { insertMember } from './member-store.ts';
import { lockAccount } from './store.ts';

/** How many accounts a setup link's page offers to take over (by name); an operator with more names one by id. */
const ADOPTABLE_LISTED = 100;

/** The accounts a setup link may take over: opened by the CLI, with no member yet. */
export const adoptableAccounts = (db: Db) => memberlessCliAccounts(db, ADOPTABLE_LISTED);

/**
 * A setup link's other grant: its opener becomes the owner of an account the operator's CLI opened (its keys, its
 * audit log) instead of a new one. Only an account the CLI opened, so a stranger's sign-up is never taken; only one
 * nobody is a member of, so no owner loses it. Runs in the accept's transaction: refused, the link stays usable.
 */
export async function adoptAccount(
  tx: Db,
  input: { invitationId: string; accountId: string; person: { id: string; email: string }; at: Date },
  origin: RequestOrigin,
): Promise<string> {
  const { accountId, person } = input;
  // two links taking over one account at once: the second waits, then sees the first one's owner
  await lockAccount(tx, accountId);
  const facts = await adoptionFacts(tx, accountId);
  if (!facts) throw notFound(`Account ${accountId}`);
  if (facts.createdBy !== 'cli')
    throw new AppError(
      'FORBIDDEN',
      `Account ${facts.name} was opened by a sign-up in the dashboard: a setup link takes over only an account ` +
        'the CLI opened.',
      { reason: 'NOT_OPENED_BY_CLI' },
    );
  if (facts.hasMember)
    throw new AppError('FORBIDDEN', `Account ${facts.name} has members already: ask its owner for an invitation.`, {
      reason: 'HAS_MEMBERS',
    });
  await insertMember(tx, { accountId, userId: person.id, role: 'owner' });
  await appendAudit(
    tx,
    auditEntry({
      accountId,
      at: input.at,
      action: 'member.joined',
      resource: `member:${person.id}`,
      actorMember: { userId: person.id, email: person.email, role: 'owner' },
      origin,
      details: { invitation: input.invitationId, role: 'owner', via: 'setup' },
    }),
  );
  return accountId;
}

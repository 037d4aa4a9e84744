import { appendAudit } from '../audit/append.ts';
import { auditEntry } from '../audit/entry.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import {
  INVITATION_TTL_MS,
  requireInvitationRoom,
  type InvitationIssuer,
  type InvitationLink,
} from './invitation-issue.ts';
import { countOwners } from './member-store.ts';
import { lockAccount } from './store.ts';

/**
 * An owner link for an account nobody owns yet (one the CLI opened): a member invitation with the owner role bound
 * to no email, so whoever opens it first becomes the owner through the usual accept path; valid as long as any
 * invitation, audited as the CLI's. Undefined when the account has an owner already: that owner invites people.
 */
export async function issueOwnerLink(
  deps: { db: Db; clock: Clock; issuer: InvitationIssuer },
  accountId: string,
): Promise<InvitationLink | undefined> {
  const at = new Date(deps.clock.now());
  return inTransaction(deps.db, async (tx) => {
    // an owner joining meanwhile must not leave a stray ownership link behind
    await lockAccount(tx, accountId);
    if ((await countOwners(tx, accountId)) > 0) return undefined;
    await requireInvitationRoom(tx, accountId, at);
    const grant = { kind: 'member' as const, accountId, email: null, role: 'owner', createdBy: null };
    const link = await deps.issuer.issue(tx, grant, INVITATION_TTL_MS);
    await appendAudit(
      tx,
      auditEntry({
        accountId,
        at,
        action: 'member.invited',
        resource: `invitation:${link.id}`,
        details: { email: null, role: 'owner', expiresAt: link.expiresAt, via: 'cli' },
      }),
    );
    return link;
  });
}

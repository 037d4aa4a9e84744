import type { AuditAction } from '@attestation-service/protocol';
import { auditEntry, type MemberActor, type RequestOrigin } from '../audit/entry.ts';
import { appendAudit } from '../audit/append.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import { pageOf, positionCursor } from '../http/cursor.ts';
import { countOwners, deleteMember, findMember, listMembers, updateRole } from './member-store.ts';
import { lockAccount } from './store.ts';
import { isRole, type Role } from './roles.ts';
import { vouchAccountsOwnedBy } from './standing-store.ts';

/** Opaque page cursors of the members list: the last member's join time and row id. */
const MEMBER_CURSOR = positionCursor('uuid');

interface MemberView {
  userId: string;
  name: string;
  email: string;
  role: Role;
  createdAt: string;
}

/** Who changes the account's people: an owner, with the request it came in. */
interface OwnerAct {
  accountId: string;
  actor: MemberActor;
  origin: RequestOrigin;
}

function lastOwner(): AppError {
  return new AppError(
    'FORBIDDEN',
    "This is the account's last owner: make another member an owner first, so the account keeps one.",
  );
}

export type MemberService = ReturnType<typeof createMemberService>;

/**
 * An account's people: list, change a role, remove. Every change holds the account against other member changes
 * for its transaction and keeps at least one owner (two owners demoting each other at once cannot leave none).
 */
export function createMemberService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;

  /** Runs a change of `userId`'s membership under the account's lock, then writes its audit entry. */
  async function change(
    act: OwnerAct,
    userId: string,
    apply: (tx: Db, target: { id: string; role: Role }) => Promise<{ action: AuditAction; details: object }>,
  ): Promise<void> {
    const at = new Date(clock.now());
    await inTransaction(db, async (tx) => {
      await lockAccount(tx, act.accountId);
      const target = await findMember(tx, act.accountId, userId);
      if (!target || !isRole(target.role)) throw notFound(`Member ${userId} of this account`);
      const { action, details } = await apply(tx, { id: target.id, role: target.role });
      await appendAudit(
        tx,
        auditEntry({
          accountId: act.accountId,
          at,
          action,
          resource: `member:${userId}`,
          actorMember: act.actor,
          origin: act.origin,
          details: { email: target.email, ...details },
        }),
      );
    });
  }

  /** FORBIDDEN when the change would leave the account without an owner. */
  async function keepAnOwner(tx: Db, accountId: string, targetRole: Role): Promise<void> {
    if (targetRole === 'owner' && (await countOwners(tx, accountId)) <= 1) throw lastOwner();
  }

  return {
    /** A page of the account's members, oldest first: `data`, and `nextCursor` while more follow. */
    async list(
      accountId: string,
      page: { limit: number; cursor?: string | undefined },
    ): Promise<{ data: MemberView[]; nextCursor: string | null }> {
      const position = page.cursor === undefined ? undefined : MEMBER_CURSOR.decode(page.cursor);
      const after = position && { createdAt: position.at, id: position.id };
      const rows = await listMembers(db, accountId, { ...(after ? { after } : {}), limit: page.limit + 1 });
      const shown = pageOf(rows, page.limit, (last) => MEMBER_CURSOR.encode(last.createdAt, last.id));
      return {
        data: shown.rows.flatMap((row) =>
          isRole(row.role)
            ? [
                {
                  userId: row.userId,
                  name: row.name,
                  email: row.email,
                  role: row.role,
                  createdAt: row.createdAt.toISOString(),
                },
              ]
            : [],
        ),
        nextCursor: shown.nextCursor,
      };
    },

    /** Gives a member another role; the last owner cannot be demoted. */
    async setRole(act: OwnerAct, userId: string, role: Role): Promise<void> {
      await change(act, userId, async (tx, target) => {
        if (role !== 'owner') await keepAnOwner(tx, act.accountId, target.role);
        await updateRole(tx, target.id, role);
        // a confirmed owner stands behind the account (standing.ts)
        if (role === 'owner') await vouchAccountsOwnedBy(tx, userId);
        return { action: 'member.role_changed', details: { from: target.role, to: role } };
      });
    },

    /** Removes a member from the account (their user stays); the last owner cannot be removed. */
    async remove(act: OwnerAct, userId: string): Promise<void> {
      await change(act, userId, async (tx, target) => {
        await keepAnOwner(tx, act.accountId, target.role);
        await deleteMember(tx, target.id);
        return { action: 'member.removed', details: { role: target.role } };
      });
    },
  };
}

import { randomUUID } from 'node:crypto';
import type { Db, Tx } from '../db/prisma.ts';
import type { Role } from './roles.ts';

/**
 * Holds the account's row against other member changes until the transaction ends, so two owners demoting each
 * other at once cannot leave it with none. NO KEY UPDATE: inserts that only reference the account (keys,
 * attestations) are not held up.
 */
export async function lockMembers(tx: Tx, accountId: string): Promise<void> {
  await tx.$executeRaw`SELECT 1 FROM accounts WHERE id = ${accountId}::uuid FOR NO KEY UPDATE`;
}

/** Where a page of members starts: after the member who joined at `createdAt` with this row id. */
export interface MemberPosition {
  createdAt: Date;
  id: string;
}

/** A page of an account's members with their names and emails, oldest first (by time, then row id). */
export async function listMembers(db: Db | Tx, accountId: string, page: { after?: MemberPosition; limit: number }) {
  const { after } = page;
  return db.member.findMany({
    where: {
      accountId,
      ...(after
        ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] }
        : {}),
    },
    select: { id: true, userId: true, role: true, createdAt: true, user: { select: { name: true, email: true } } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: page.limit,
  });
}

export async function findMember(db: Db | Tx, accountId: string, userId: string) {
  return db.member.findUnique({
    where: { accountId_userId: { accountId, userId } },
    select: { id: true, role: true, user: { select: { email: true } } },
  });
}

export async function countOwners(db: Db | Tx, accountId: string): Promise<number> {
  return db.member.count({ where: { accountId, role: 'owner' satisfies Role } });
}

/** The user id of the account's member with this email, if one has it. */
export async function memberByEmail(db: Db | Tx, accountId: string, email: string): Promise<string | undefined> {
  const row = await db.member.findFirst({
    where: { accountId, user: { email: { equals: email, mode: 'insensitive' } } },
    select: { userId: true },
  });
  return row?.userId;
}

/** Adds a membership; false when the user already belongs to the account (the unique index decides). */
export async function insertMember(
  db: Db | Tx,
  row: { accountId: string; userId: string; role: Role },
): Promise<boolean> {
  const { count } = await db.member.createMany({ data: [{ id: randomUUID(), ...row }], skipDuplicates: true });
  return count === 1;
}

export async function updateRole(tx: Tx, id: string, role: Role): Promise<void> {
  await tx.member.update({ where: { id }, data: { role }, select: { id: true } });
}

export async function deleteMember(tx: Tx, id: string): Promise<void> {
  await tx.member.delete({ where: { id }, select: { id: true } });
}

/** Sets an account's plan; the plan it had, or undefined when there is no such account. */
export async function updatePlan(tx: Tx, accountId: string, plan: string): Promise<string | undefined> {
  const before = await tx.account.findUnique({ where: { id: accountId }, select: { plan: true } });
  if (!before) return undefined;
  await tx.account.update({ where: { id: accountId }, data: { plan }, select: { id: true } });
  return before.plan;
}

/** Every account with its plan and member count, by name. */
export async function listAccounts(db: Db | Tx) {
  const rows = await db.account.findMany({
    select: { id: true, name: true, plan: true, createdAt: true, _count: { select: { members: true } } },
    orderBy: { name: 'asc' },
  });
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    plan: r.plan,
    members: r._count.members,
    createdAt: r.createdAt.toISOString(),
  }));
}

export async function accountNameOf(db: Db | Tx, id: string): Promise<string | undefined> {
  return (await db.account.findUnique({ where: { id }, select: { name: true } }))?.name;
}

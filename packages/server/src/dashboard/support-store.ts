import type { Db } from '../db/prisma.ts';

const ACCOUNT_SELECT = { id: true, name: true, plan: true, createdAt: true } as const;

/** Accounts whose name contains `part` (any case), by name. */
export async function accountsNamed(db: Db, part: string, limit: number) {
  return db.account.findMany({
    where: { name: { contains: part, mode: 'insensitive' } },
    select: ACCOUNT_SELECT,
    orderBy: { name: 'asc' },
    take: limit,
  });
}

/** The account holding the key with this prefix, if any. */
export async function accountOfKey(db: Db, prefix: string) {
  return (await db.apiKey.findUnique({ where: { prefix }, select: { account: { select: ACCOUNT_SELECT } } }))?.account;
}

/** The account that made the attestation with this uid, if any. */
export async function accountOfAttestation(db: Db, uid: string) {
  return (await db.attestation.findUnique({ where: { uid }, select: { account: { select: ACCOUNT_SELECT } } }))
    ?.account;
}

export async function accountById(db: Db, id: string) {
  return db.account.findUnique({ where: { id }, select: ACCOUNT_SELECT });
}

/** An account's keys, oldest first, with their on-chain use in `period`. */
export async function keysWithUsage(db: Db, accountId: string, period: string) {
  return db.apiKey.findMany({
    where: { accountId },
    select: {
      prefix: true,
      name: true,
      tier: true,
      revokedAt: true,
      usage: { where: { period }, select: { onchainUsed: true } },
    },
    orderBy: { createdAt: 'asc' },
  });
}

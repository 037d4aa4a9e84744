import type { Db, Tx } from '../db/prisma.ts';
import type { Prisma } from '../generated/prisma/client.ts';

export type AttestationRow = Prisma.AttestationGetPayload<object>;

export interface NewAttestation {
  uid: string | null;
  accountId: string;
  apiKeyId: string;
  type: string;
  mode: 'onchain' | 'offchain';
  status: 'pending' | 'confirmed' | 'failed';
  contentHash: string;
  contentType: string;
  chainId: number;
  schemaUid: string;
  attester: string;
  offchain: Prisma.InputJsonValue | undefined;
  createdAt: Date;
}

export async function insertAttestation(tx: Db | Tx, row: NewAttestation): Promise<AttestationRow> {
  return tx.attestation.create({ data: row });
}

/** A readable attestation (one with a uid; pending on-chain ones have none yet). */
export async function findByUid(db: Db | Tx, uid: string): Promise<AttestationRow | null> {
  return db.attestation.findUnique({ where: { uid } });
}

/** One page of the attestations of a content hash, newest first; `beforeId` continues a previous page. */
export async function searchByHash(db: Db | Tx, contentHash: string, limit: number, beforeId?: bigint): Promise<AttestationRow[]> {
  return db.attestation.findMany({
    where: { contentHash, uid: { not: null }, ...(beforeId === undefined ? {} : { id: { lt: beforeId } }) },
    orderBy: { id: 'desc' },
    take: limit,
  });
}

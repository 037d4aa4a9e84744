import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { AttestationMode, AttestationOrigin } from './states.ts';

/** What a new claim needs to know of the attestation it names as its origin. */
interface RefTarget {
  uid: string;
  mode: AttestationMode;
}

/** The readable attestations among these uids (pending on-chain ones have no uid, so they are never origins). */
export async function refTargets(db: Db, uids: string[]): Promise<Map<string, RefTarget>> {
  if (uids.length === 0) return new Map();
  const rows = await db
    .selectFrom('attestations')
    .select(['uid', 'mode'])
    .where((eb) => eb('uid', '=', eb.fn.any(eb.val(uids))))
    .$narrowType<{ uid: string; mode: AttestationMode }>()
    .execute();
  return new Map(rows.map((row) => [row.uid, row]));
}

/** One attestation of a provenance chain, as the walk reads it. */
interface ChainRow {
  id: string;
  uid: string;
  refUid: string | null;
  type: AttestationOrigin;
  mode: AttestationMode;
  attester: string;
  txHash: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/**
 * The chain from `uid` back through its refUids, newest first: at most `maxRows` rows, walked by ONE recursive
 * query (an index probe on the unique uid per step). `a.id < c.id` states the invariant that makes a cycle
 * impossible (an origin existed before the claim naming it, so its row is older); it also bounds the walk by itself.
 */
export async function provenanceChain(db: Db, uid: string, maxRows: number): Promise<ChainRow[]> {
  const { rows } = await sql<ChainRow>`
    WITH RECURSIVE chain AS (
      SELECT a.id, a.uid, a.ref_uid, a.type, a.mode, a.attester, a.tx_hash, a.created_at, a.revoked_at, 1 AS depth
      FROM attestations a
      WHERE a.uid = ${uid}
      UNION ALL
      SELECT a.id, a.uid, a.ref_uid, a.type, a.mode, a.attester, a.tx_hash, a.created_at, a.revoked_at, c.depth + 1
      FROM chain c
      JOIN attestations a ON a.uid = c.ref_uid AND a.id < c.id
      WHERE c.depth < ${maxRows}
    )
    SELECT id::text AS id, uid, ref_uid, type, mode, attester, tx_hash, created_at, revoked_at
    FROM chain
    ORDER BY depth
    LIMIT ${maxRows}
  `.execute(db);
  return rows;
}

import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { STATUS_LIST_SIZE } from './status-list.ts';

/**
 * The revoked attestations of a list, as indexes in it (read through a partial index of revoked rows), or null when
 * no attestation has reached the list yet. A revocation sets `revoked_at` in the transaction that revokes, so its bit
 * is set there too.
 */
export async function revokedInList(db: Db, list: bigint): Promise<number[] | null> {
  const size = BigInt(STATUS_LIST_SIZE);
  const from = (list * size).toString();
  const to = ((list + 1n) * size).toString();
  const { rows } = await sql<{ id: string; reached: boolean }>`
    SELECT a.id::text AS id, true AS reached FROM attestations a
     WHERE a.revoked_at IS NOT NULL AND a.id >= ${from}::int8 AND a.id < ${to}::int8
    UNION ALL
    SELECT NULL, EXISTS (SELECT 1 FROM attestations WHERE id >= ${from}::int8)`.execute(db);
  if (!rows.some((row) => row.id === null && row.reached)) return null;
  return rows.flatMap((row) => (row.id === null ? [] : [Number(BigInt(row.id) - list * size)]));
}

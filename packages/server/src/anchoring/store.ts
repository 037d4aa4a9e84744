import type { Hex } from 'viem';
import type { PgRow, Prisma } from '../db/rows.ts';
import type { Sql } from '../db/sql.ts';

/** An anchor as the relayer and the anchor task read it. */
export type AnchorRow = PgRow<Pick<Prisma.AnchorModel, 'id' | 'leafCount'>> & { root: Hex };

/** Where the chain timestamped a root: the transaction, its block and the block's time. */
export interface Timestamped {
  txHash: Hex;
  blockNumber: bigint;
  timestamp: Date;
}

/** Up to `limit` off-chain attestations that no anchor holds yet, oldest first (a walk of their partial index). */
export async function unanchored(sql: Sql, limit: number): Promise<Array<{ id: string; uid: Hex }>> {
  return sql.query(
    `SELECT id::text, uid FROM attestations WHERE mode = 'offchain' AND anchor_id IS NULL ORDER BY id LIMIT $1`,
    [limit],
  );
}

/** Records an anchor about to be given its attestations (unassigned: the relayer leaves it until markAssigned). */
export async function insertAnchor(sql: Sql, root: Hex, leafCount: number, at: Date): Promise<string> {
  const [row] = await sql.query<{ id: string }>(
    `INSERT INTO anchors (root, leaf_count, created_at) VALUES ($1, $2, $3) RETURNING id::text`,
    [root, leafCount, at],
  );
  return row!.id;
}

/**
 * Puts attestations in an anchor with their proofs, unless an anchor holds them already; returns how many it took.
 * The condition is the database's guarantee that no attestation is in two anchors, whatever runs at once.
 */
export async function assignLeaves(sql: Sql, anchorId: string, ids: string[], proofs: Buffer[]): Promise<number> {
  const [row] = await sql.query<{ taken: number }>(
    `WITH taken AS (
       UPDATE attestations a SET anchor_id = $1::bigint, anchor_proof = v.proof
       FROM unnest($2::bigint[], $3::bytea[]) AS v(id, proof)
       WHERE a.id = v.id AND a.anchor_id IS NULL AND a.mode = 'offchain'
       RETURNING 1)
     SELECT count(*)::int AS taken FROM taken`,
    [anchorId, ids, proofs],
  );
  return row!.taken;
}

/** Every attestation of the anchor has it: the relayer may send it. False when the anchor is gone (abandoned). */
export async function markAssigned(sql: Sql, anchorId: string, at: Date): Promise<boolean> {
  const rows = await sql.query(`UPDATE anchors SET assigned_at = $2 WHERE id = $1::bigint RETURNING id`, [
    anchorId,
    at,
  ]);
  return rows.length === 1;
}

/** Anchors a crash left while their attestations were being given them. */
export async function unassignedAnchors(sql: Sql): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(`SELECT id::text FROM anchors WHERE assigned_at IS NULL ORDER BY id`);
  return rows.map((r) => r.id);
}

/** Gives up to `limit` of an unassigned anchor's attestations back (no anchor, no proof); returns how many. */
export async function releaseLeaves(sql: Sql, anchorId: string, limit: number): Promise<number> {
  const [row] = await sql.query<{ released: number }>(
    `WITH released AS (
       UPDATE attestations SET anchor_id = NULL, anchor_proof = NULL
       WHERE id IN (SELECT id FROM attestations WHERE anchor_id = $1::bigint LIMIT $2) RETURNING 1)
     SELECT count(*)::int AS released FROM released`,
    [anchorId, limit],
  );
  return row!.released;
}

/** Deletes an unassigned anchor whose attestations were all given back. */
export async function deleteAnchor(sql: Sql, anchorId: string): Promise<void> {
  await sql.query(`DELETE FROM anchors WHERE id = $1::bigint AND assigned_at IS NULL`, [anchorId]);
}

/** Whether an anchor waits for the relayer to take it (assigned, or offered again, and not yet sent). */
export async function anchorWaiting(sql: Sql): Promise<boolean> {
  const rows = await sql.query(
    `SELECT 1 FROM anchors WHERE tx_hash IS NULL AND relay_tx_id IS NULL AND assigned_at IS NOT NULL LIMIT 1`,
  );
  return rows.length > 0;
}

/** Anchors whose transaction failed (not sent, or reverted): the anchor task offers them again. */
export async function failedAnchors(sql: Sql): Promise<AnchorRow[]> {
  return sql.query(
    `SELECT a.id::text, a.root, a.leaf_count AS "leafCount"
     FROM anchors a JOIN relay_transactions r ON r.id = a.relay_tx_id
     WHERE a.tx_hash IS NULL AND r.status = 'failed' ORDER BY a.id`,
  );
}

/** Leaves an anchor to the relayer again (its last transaction failed, was replaced, or was never signed). */
export async function offerAgain(sql: Sql, where: { anchorId: string } | { journalId: string }): Promise<void> {
  const [column, id] = 'anchorId' in where ? ['id', where.anchorId] : ['relay_tx_id', where.journalId];
  await sql.query(`UPDATE anchors SET relay_tx_id = NULL WHERE ${column} = $1::bigint AND tx_hash IS NULL`, [id]);
}

/**
 * Ties the oldest anchor waiting for the relayer to the journal entry `open` makes (undefined: declined, it waits).
 * SKIP LOCKED: a second relayer never takes the same anchor. The transaction carries one item: the root.
 */
export async function claimAnchor(
  sql: Sql,
  open: () => Promise<string | undefined>,
): Promise<{ journalId: string; count: number } | undefined> {
  const [anchor] = await sql.query<{ id: string }>(
    `SELECT id::text FROM anchors WHERE tx_hash IS NULL AND relay_tx_id IS NULL AND assigned_at IS NOT NULL
     ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`,
  );
  if (!anchor) return undefined;
  const journalId = await open();
  if (journalId === undefined) return undefined;
  await sql.query(`UPDATE anchors SET relay_tx_id = $2::bigint WHERE id = $1::bigint`, [anchor.id, journalId]);
  return { journalId, count: 1 };
}

/** The anchor a journal entry carries. */
export async function anchorOf(sql: Sql, journalId: string): Promise<AnchorRow | undefined> {
  const [anchor] = await sql.query<AnchorRow>(
    `SELECT id::text, root, leaf_count AS "leafCount" FROM anchors WHERE relay_tx_id = $1::bigint`,
    [journalId],
  );
  return anchor;
}

/** Marks an anchor mined; false when it was already (the confirmation then does nothing more). */
export async function markMined(sql: Sql, anchorId: string, at: Timestamped): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE anchors SET tx_hash = $2, block_number = $3, "timestamp" = $4 WHERE id = $1::bigint AND tx_hash IS NULL
     RETURNING id`,
    [anchorId, at.txHash, at.blockNumber.toString(), at.timestamp],
  );
  return rows.length === 1;
}

/** An anchor's uids by the account that made them, oldest first. */
export async function uidsByAccount(sql: Sql, anchorId: string): Promise<Array<{ accountId: string; uids: Hex[] }>> {
  return sql.query(
    `SELECT account_id AS "accountId", array_agg(uid ORDER BY id) AS uids FROM attestations WHERE anchor_id = $1::bigint
     GROUP BY account_id ORDER BY account_id`,
    [anchorId],
  );
}

/** A reorg took the anchor's transaction off the chain: not timestamped until it is mined again (same journal entry). */
export async function unmarkMined(sql: Sql, journalId: string): Promise<void> {
  await sql.query(
    `UPDATE anchors SET tx_hash = NULL, block_number = NULL, "timestamp" = NULL WHERE relay_tx_id = $1::bigint`,
    [journalId],
  );
}

import { sql, type Selectable } from 'kysely';
import type { Hex } from 'viem';
import type { Db, DB } from '../db/database.ts';

/** An anchor as the relayer and the anchor task read it. */
export type AnchorRow = Pick<Selectable<DB['anchors']>, 'id' | 'leafCount'> & { root: Hex };

/** Where the chain timestamped a root: the transaction, its block and the block's time. */
export interface Timestamped {
  txHash: Hex;
  blockNumber: bigint;
  timestamp: Date;
}

/** Up to `limit` off-chain attestations that no anchor holds yet, oldest first (a walk of their partial index). */
export async function unanchored(db: Db, limit: number): Promise<Array<{ id: string; uid: Hex }>> {
  return db
    .selectFrom('attestations')
    .select(['id', 'uid'])
    .where('mode', '=', 'offchain')
    .where('anchorId', 'is', null)
    .orderBy('id')
    .limit(limit)
    .$narrowType<{ uid: Hex }>()
    .execute();
}

/** Records an anchor about to be given its attestations (unassigned: the relayer leaves it until markAssigned). */
export async function insertAnchor(db: Db, root: Hex, leafCount: number, at: Date): Promise<string> {
  const row = await db
    .insertInto('anchors')
    .values({ root, leafCount, createdAt: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Puts attestations in an anchor with their proofs, unless an anchor holds them already; returns how many it took.
 * The condition is the database's guarantee that no attestation is in two anchors, whatever runs at once.
 * The proofs go as one binary parameter with each one's length (AnchorTree.proofsOf): a JSON or array text of 5,000
 * proofs in hex is megabytes of strings that the worker's heap grows to hold (BENCHMARKS.md, "Memory").
 */
export async function assignLeaves(
  db: Db,
  anchorId: string,
  ids: string[],
  proofs: { bytes: Buffer; lengths: number[] },
): Promise<number> {
  const { bytes, lengths } = proofs;
  const starts: number[] = [];
  for (let i = 0, at = 1; i < lengths.length; at += lengths[i++]!) starts.push(at); // substring() counts from 1
  const leaves = sql<{
    id: string;
    start: number;
    length: number;
  }>`unnest(${ids}::int8[], ${starts}::int4[], ${lengths}::int4[])`;
  const row = await db
    .with('taken', (db) =>
      db
        .updateTable('attestations as a')
        .from(leaves.as<'v'>(sql`v(id, start, length)`))
        // node-postgres sends a Buffer parameter in binary: no hex text of the proofs is made
        .set({ anchorId, anchorProof: sql<Buffer>`substring(${bytes}::bytea from v.start for v.length)` })
        .whereRef('a.id', '=', 'v.id')
        .where('a.anchorId', 'is', null)
        .where('a.mode', '=', 'offchain')
        .returning('a.id'),
    )
    .selectFrom('taken')
    .select(sql<number>`count(*)::int`.as('taken'))
    .executeTakeFirstOrThrow();
  return row.taken;
}

/** Every attestation of the anchor has it: the relayer may send it. False when the anchor is gone (abandoned). */
export async function markAssigned(db: Db, anchorId: string, at: Date): Promise<boolean> {
  const row = await db
    .updateTable('anchors')
    .set({ assignedAt: at })
    .where('id', '=', anchorId)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Anchors a crash left while their attestations were being given them. */
export async function unassignedAnchors(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('anchors').select('id').where('assignedAt', 'is', null).orderBy('id').execute();
  return rows.map((r) => r.id);
}

/** Gives up to `limit` of an unassigned anchor's attestations back (no anchor, no proof); returns how many. */
export async function releaseLeaves(db: Db, anchorId: string, limit: number): Promise<number> {
  const row = await db
    .with('released', (db) =>
      db
        .updateTable('attestations')
        .set({ anchorId: null, anchorProof: null })
        .where('id', 'in', (eb) =>
          eb.selectFrom('attestations').select('id').where('anchorId', '=', anchorId).limit(limit),
        )
        .returning('id'),
    )
    .selectFrom('released')
    .select(sql<number>`count(*)::int`.as('released'))
    .executeTakeFirstOrThrow();
  return row.released;
}

/** Deletes an unassigned anchor whose attestations were all given back. */
export async function deleteAnchor(db: Db, anchorId: string): Promise<void> {
  await db.deleteFrom('anchors').where('id', '=', anchorId).where('assignedAt', 'is', null).execute();
}

/** Whether an anchor waits for the relayer to take it (assigned, or offered again, and not yet sent). */
export async function anchorWaiting(db: Db): Promise<boolean> {
  const row = await db
    .selectFrom('anchors')
    .select(sql<number>`1`.as('one'))
    .where('txHash', 'is', null)
    .where('relayTxId', 'is', null)
    .where('assignedAt', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Anchors whose transaction failed (not sent, or reverted): the anchor task offers them again. */
export async function failedAnchors(db: Db): Promise<AnchorRow[]> {
  return db
    .selectFrom('anchors as a')
    .innerJoin('relayTransactions as r', 'r.id', 'a.relayTxId')
    .select(['a.id', 'a.root', 'a.leafCount'])
    .where('a.txHash', 'is', null)
    .where('r.status', '=', 'failed')
    .orderBy('a.id')
    .$narrowType<{ root: Hex }>()
    .execute();
}

/** Leaves an anchor to the relayer again (its last transaction failed, was replaced, or was never signed). */
export async function offerAgain(db: Db, where: { anchorId: string } | { journalId: string }): Promise<void> {
  const [column, id] =
    'anchorId' in where ? (['id', where.anchorId] as const) : (['relayTxId', where.journalId] as const);
  await db.updateTable('anchors').set({ relayTxId: null }).where(column, '=', id).where('txHash', 'is', null).execute();
}

/**
 * Ties the oldest anchor waiting for the relayer to the journal entry `open` makes (undefined: declined, it waits).
 * SKIP LOCKED: a second relayer never takes the same anchor. The transaction carries one item: the root.
 */
export async function claimAnchor(
  db: Db,
  open: () => Promise<string | undefined>,
): Promise<{ journalId: string; count: number } | undefined> {
  const anchor = await db
    .selectFrom('anchors')
    .select('id')
    .where('txHash', 'is', null)
    .where('relayTxId', 'is', null)
    .where('assignedAt', 'is not', null)
    .orderBy('id')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  if (!anchor) return undefined;
  const journalId = await open();
  if (journalId === undefined) return undefined;
  await db.updateTable('anchors').set({ relayTxId: journalId }).where('id', '=', anchor.id).execute();
  return { journalId, count: 1 };
}

export async function anchorOf(db: Db, journalId: string): Promise<AnchorRow | undefined> {
  return db
    .selectFrom('anchors')
    .select(['id', 'root', 'leafCount'])
    .where('relayTxId', '=', journalId)
    .$narrowType<{ root: Hex }>()
    .executeTakeFirst();
}

/** Marks an anchor mined; false when it was already (the confirmation then does nothing more). */
export async function markMined(db: Db, anchorId: string, at: Timestamped): Promise<boolean> {
  const row = await db
    .updateTable('anchors')
    .set({ txHash: at.txHash, blockNumber: at.blockNumber.toString(), timestamp: at.timestamp })
    .where('id', '=', anchorId)
    .where('txHash', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** An anchor's uids by the account that made them, oldest first. */
export async function uidsByAccount(db: Db, anchorId: string): Promise<Array<{ accountId: string; uids: Hex[] }>> {
  return db
    .selectFrom('attestations')
    .select(['accountId', sql<Hex[]>`array_agg(${sql.ref('uid')} ORDER BY ${sql.ref('id')})`.as('uids')])
    .where('anchorId', '=', anchorId)
    .groupBy('accountId')
    .orderBy('accountId')
    .execute();
}

/** A reorg took the anchor's transaction off the chain: not timestamped until it is mined again (same journal entry). */
export async function unmarkMined(db: Db, journalId: string): Promise<void> {
  await db
    .updateTable('anchors')
    .set({ txHash: null, blockNumber: null, timestamp: null })
    .where('relayTxId', '=', journalId)
    .execute();
}

/**
 * When the oldest off-chain attestation not on chain yet was made (the oldest in no anchor, or the oldest anchor not
 * mined: its attestations are older still), from two partial indexes; null when none waits.
 */
export async function oldestUnanchored(db: Db): Promise<Date | null> {
  const row = await db
    .selectNoFrom((eb) =>
      eb
        .fn<Date | null>('least', [
          eb
            .selectFrom('attestations')
            .select('createdAt')
            .where('mode', '=', 'offchain')
            .where('anchorId', 'is', null)
            .orderBy('id')
            .limit(1),
          eb.selectFrom('anchors').select('createdAt').where('txHash', 'is', null).orderBy('id').limit(1),
        ])
        .as('oldest'),
    )
    .executeTakeFirst();
  return row?.oldest ?? null;
}

import type { Hex } from 'viem';
import type { PgRow, Prisma } from '../db/rows.ts';
import type { Sql } from '../db/sql.ts';
import { meter } from '../system/meter.ts';

type Model = Prisma.RelayTransactionModel;

/** What a relay transaction carries: attestations, revocations, or a Merkle root to timestamp (an anchor). */
export type RelayKind = 'attest' | 'revoke' | 'anchor';

/** A relay transaction's life: `intent` (items claimed, nothing signed), `sent` (signed, journaled), `mined` or `failed`. */
export type RelayStatus = 'intent' | 'sent' | 'mined' | 'failed';

/** A relay transaction as the journal holds it: Prisma's model, with its text columns narrowed. */
export type JournalEntry = PgRow<Pick<Model, 'id'>> &
  Pick<Model, 'nonce' | 'maxFeePerGas' | 'attempts' | 'sentAt'> & {
    kind: RelayKind;
    status: RelayStatus;
    txHash: Hex | null;
    rawTx: Hex | null;
    sentHashes: Hex[];
    /** The relayer address that signed it (null before it was signed, and for entries older than the column). */
    signer: Hex | null;
  };

const COLUMNS = `id::text, kind, status, nonce, tx_hash AS "txHash", raw_tx AS "rawTx", max_fee_per_gas AS "maxFeePerGas",
  sent_hashes AS "sentHashes", attempts, sent_at AS "sentAt", signer`;

/** Opens an entry for a transaction about to be built. */
export async function recordIntent(sql: Sql, kind: RelayKind): Promise<string> {
  const [row] = await sql.query<{ id: string }>(
    `INSERT INTO relay_transactions (kind, status) VALUES ($1, 'intent') RETURNING id::text`,
    [kind],
  );
  return row!.id;
}

/** Records a signed transaction before it is broadcast: after a crash, its hash finds it and its bytes resend it. */
export async function recordSigned(
  sql: Sql,
  id: string,
  tx: { nonce: number; hash: Hex; raw: Hex; maxFeePerGas: bigint; signer: Hex },
  at: Date,
): Promise<void> {
  await sql.query(
    `UPDATE relay_transactions SET status = 'sent', nonce = $2, tx_hash = $3, raw_tx = $4, max_fee_per_gas = $5,
       sent_hashes = sent_hashes || jsonb_build_array($7::text), attempts = attempts + 1, sent_at = $6, updated_at = $6,
       signer = $8
     WHERE id = $1::bigint`,
    [id, tx.nonce, tx.hash, tx.raw, tx.maxFeePerGas.toString(), at, tx.hash, tx.signer.toLowerCase()],
  );
}

/**
 * Locks an entry for the transaction that records its outcome, and says whether it is still open (`intent` or
 * `sent`). A second finish of the same entry (two relayers for a moment, after PostgreSQL dropped the first one's
 * signer lock) then waits for the first and finds it done: its items, events and audit entries are written once.
 */
export async function lockOpenEntry(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql.query<{ open: boolean }>(
    `SELECT status IN ('intent', 'sent') AS open FROM relay_transactions WHERE id = $1::bigint FOR UPDATE`,
    [id],
  );
  return rows[0]?.open === true;
}

export async function recordMined(
  sql: Sql,
  id: string,
  receipt: { hash: Hex; blockNumber: bigint; blockHash: Hex; gasUsed: bigint },
  at: Date,
): Promise<void> {
  await sql.query(
    `UPDATE relay_transactions SET status = 'mined', tx_hash = $2, block_number = $3, gas_used = $4, updated_at = $5,
       block_hash = $6 WHERE id = $1::bigint`,
    [id, receipt.hash, receipt.blockNumber.toString(), receipt.gasUsed.toString(), at, receipt.blockHash],
  );
  meter().relayTransaction('mined', receipt.gasUsed);
}

export async function recordFailed(sql: Sql, id: string, error: string, at: Date): Promise<void> {
  await sql.query(
    `UPDATE relay_transactions SET status = 'failed', error = $2, updated_at = $3 WHERE id = $1::bigint`,
    [id, error.slice(0, 500), at],
  );
  meter().relayTransaction('failed');
}

/** Entries a crash or a stuck transaction left open, oldest first. */
export async function unfinished(sql: Sql): Promise<JournalEntry[]> {
  return sql.query<JournalEntry>(
    `SELECT ${COLUMNS} FROM relay_transactions WHERE status IN ('intent', 'sent') ORDER BY nonce NULLS FIRST, id`,
  );
}

/** A mined entry as the reorg watch reads it: where it was mined, and whether it did what it was sent for. */
export interface MinedEntry {
  id: string;
  kind: RelayKind;
  status: Extract<RelayStatus, 'mined' | 'failed'>;
  txHash: Hex;
  blockNumber: bigint;
  blockHash: Hex;
}

/** Where a transaction that failed on chain (reverted) was mined: if a reorg takes that block, its nonce is free again. */
export async function recordFailedBlock(sql: Sql, id: string, block: { blockNumber: bigint; blockHash: Hex }) {
  await sql.query(
    `UPDATE relay_transactions SET block_number = $2, block_hash = $3 WHERE id = $1::bigint AND status = 'failed'`,
    [id, block.blockNumber.toString(), block.blockHash],
  );
}

/** Entries mined at `fromBlock` or later and since `since`, newest block first (those mined before hashes were kept are not). */
export async function minedSince(sql: Sql, fromBlock: bigint, since: Date): Promise<MinedEntry[]> {
  const rows = await sql.query<Omit<MinedEntry, 'blockNumber'> & { blockNumber: string }>(
    `SELECT id::text, kind, status, tx_hash AS "txHash", block_number::text AS "blockNumber", block_hash AS "blockHash"
     FROM relay_transactions
     WHERE block_number >= $1 AND status IN ('mined', 'failed') AND block_hash IS NOT NULL AND updated_at >= $2
     ORDER BY block_number DESC, id`,
    [fromBlock.toString(), since],
  );
  return rows.map((row) => ({ ...row, blockNumber: BigInt(row.blockNumber) }));
}

/** An entry whose block left the chain is in flight again (`sent`); returns it as it stands now. */
export async function recordReorged(sql: Sql, id: string, at: Date): Promise<JournalEntry | undefined> {
  const [row] = await sql.query<JournalEntry>(
    `UPDATE relay_transactions SET status = 'sent', block_number = NULL, block_hash = NULL, reorged_at = $2, updated_at = $2
     WHERE id = $1::bigint AND status IN ('mined', 'failed') AND block_hash IS NOT NULL RETURNING ${COLUMNS}`,
    [id, at],
  );
  if (row) meter().relayTransaction('reorged');
  return row;
}

/** Whether a reorg ever took this entry's block off the chain. */
export async function wasReorged(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql.query(`SELECT 1 FROM relay_transactions WHERE id = $1::bigint AND reorged_at IS NOT NULL`, [
    id,
  ]);
  return rows.length === 1;
}

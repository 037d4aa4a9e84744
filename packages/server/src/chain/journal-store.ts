import { sql, type Selectable } from 'kysely';
import type { Hex } from 'viem';
import type { Db, DB } from '../db/database.ts';
import { meter } from '../system/meter.ts';

type Row = Selectable<DB['relayTransactions']>;

/** What a relay transaction carries: attestations, revocations, or a Merkle root to timestamp (an anchor). */
export type RelayKind = 'attest' | 'revoke' | 'anchor';

/** A relay transaction's life: `intent` (items claimed, nothing signed), `sent` (signed, journaled), `mined` or `failed`. */
export type RelayStatus = 'intent' | 'sent' | 'mined' | 'failed';

/** A relay transaction as the journal holds it: the table's row, with its text columns narrowed. */
export type JournalEntry = Pick<Row, 'id' | 'nonce' | 'maxFeePerGas' | 'attempts' | 'sentAt'> & {
  kind: RelayKind;
  status: RelayStatus;
  txHash: Hex | null;
  rawTx: Hex | null;
  sentHashes: Hex[];
  /** The relayer address that signed it (null before it was signed, and for entries older than the column). */
  signer: Hex | null;
};

/** A row as the journal reads it: its text columns narrowed (they are written only from those types). */
const asEntry = (row: Pick<Row, keyof JournalEntry>): JournalEntry => row as JournalEntry;

/** Opens an entry for a transaction about to be built. */
export async function recordIntent(db: Db, kind: RelayKind): Promise<string> {
  const row = await db
    .insertInto('relayTransactions')
    .values({ kind, status: 'intent' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Records a signed transaction before it is broadcast: after a crash, its hash finds it and its bytes resend it. */
export async function recordSigned(
  db: Db,
  id: string,
  tx: { nonce: number; hash: Hex; raw: Hex; maxFeePerGas: bigint; signer: Hex },
  at: Date,
): Promise<void> {
  await db
    .updateTable('relayTransactions')
    .set((eb) => ({
      status: 'sent',
      nonce: tx.nonce,
      txHash: tx.hash,
      rawTx: tx.raw,
      maxFeePerGas: tx.maxFeePerGas.toString(),
      sentHashes: sql`${sql.ref('sentHashes')} || jsonb_build_array(${tx.hash}::text)`,
      attempts: eb('attempts', '+', 1),
      sentAt: at,
      updatedAt: at,
      signer: tx.signer.toLowerCase(),
    }))
    .where('id', '=', id)
    .execute();
}

/**
 * Locks an entry for the transaction that records its outcome, and says whether it is still open (`intent` or
 * `sent`). A second finish of the same entry (two relayers for a moment, after PostgreSQL dropped the first one's
 * signer lock) then waits for the first and finds it done: its items, events and audit entries are written once.
 */
export async function lockOpenEntry(db: Db, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('relayTransactions')
    .select((eb) => eb('status', 'in', ['intent', 'sent']).as('open'))
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  return row?.open === true;
}

export async function recordMined(
  db: Db,
  id: string,
  receipt: { hash: Hex; blockNumber: bigint; blockHash: Hex; gasUsed: bigint },
  at: Date,
): Promise<void> {
  await db
    .updateTable('relayTransactions')
    .set({
      status: 'mined',
      txHash: receipt.hash,
      blockNumber: receipt.blockNumber.toString(),
      gasUsed: receipt.gasUsed.toString(),
      updatedAt: at,
      blockHash: receipt.blockHash,
    })
    .where('id', '=', id)
    .execute();
  meter().relayTransaction('mined', receipt.gasUsed);
}

export async function recordFailed(db: Db, id: string, error: string, at: Date): Promise<void> {
  await db
    .updateTable('relayTransactions')
    .set({ status: 'failed', error: error.slice(0, 500), updatedAt: at })
    .where('id', '=', id)
    .execute();
  meter().relayTransaction('failed');
}

/** The columns of a JournalEntry, as every read of entries selects them. */
const ENTRY_COLUMNS = [
  'id',
  'kind',
  'status',
  'nonce',
  'txHash',
  'rawTx',
  'maxFeePerGas',
  'sentHashes',
  'attempts',
  'sentAt',
  'signer',
] as const;

/** Entries a crash or a stuck transaction left open, oldest first. */
export async function unfinished(db: Db): Promise<JournalEntry[]> {
  const rows = await db
    .selectFrom('relayTransactions')
    .select(ENTRY_COLUMNS)
    .where('status', 'in', ['intent', 'sent'])
    .orderBy('nonce', (ob) => ob.asc().nullsFirst())
    .orderBy('id')
    .execute();
  return rows.map(asEntry);
}

/** A mined entry as the reorg watch reads it: where it was mined, and whether it did what it was sent for. */
interface MinedEntry {
  id: string;
  kind: RelayKind;
  status: Extract<RelayStatus, 'mined' | 'failed'>;
  txHash: Hex;
  blockNumber: bigint;
  blockHash: Hex;
}

/** Where a transaction that failed on chain (reverted) was mined: if a reorg takes that block, its nonce is free again. */
export async function recordFailedBlock(db: Db, id: string, block: { blockNumber: bigint; blockHash: Hex }) {
  await db
    .updateTable('relayTransactions')
    .set({ blockNumber: block.blockNumber.toString(), blockHash: block.blockHash })
    .where('id', '=', id)
    .where('status', '=', 'failed')
    .execute();
}

/** Entries mined at `fromBlock` or later and since `since`, newest block first (those mined before hashes were kept are not). */
export async function minedSince(db: Db, fromBlock: bigint, since: Date): Promise<MinedEntry[]> {
  const rows = await db
    .selectFrom('relayTransactions')
    .select(['id', 'kind', 'status', 'txHash', 'blockNumber', 'blockHash'])
    .where('blockNumber', '>=', fromBlock.toString())
    .where('status', 'in', ['mined', 'failed'])
    .where('blockHash', 'is not', null)
    .where('updatedAt', '>=', since)
    .orderBy('blockNumber', 'desc')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind as RelayKind,
    status: row.status as MinedEntry['status'],
    txHash: row.txHash as Hex,
    blockNumber: BigInt(row.blockNumber!),
    blockHash: row.blockHash as Hex,
  }));
}

/** An entry whose block left the chain is in flight again (`sent`); returns it as it stands now. */
export async function recordReorged(db: Db, id: string, at: Date): Promise<JournalEntry | undefined> {
  const row = await db
    .updateTable('relayTransactions')
    .set({ status: 'sent', blockNumber: null, blockHash: null, reorgedAt: at, updatedAt: at })
    .where('id', '=', id)
    .where('status', 'in', ['mined', 'failed'])
    .where('blockHash', 'is not', null)
    .returning(ENTRY_COLUMNS)
    .executeTakeFirst();
  if (row) meter().relayTransaction('reorged');
  return row && asEntry(row);
}

/** Whether a reorg ever took this entry's block off the chain. */
export async function wasReorged(db: Db, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('relayTransactions')
    .select(sql<number>`1`.as('one'))
    .where('id', '=', id)
    .where('reorgedAt', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** The relayer's gauges (by the status index and the primary key): transactions in flight, the last max fee signed. */
export async function journalReading(db: Db): Promise<{ inFlight: number; lastFeeWei: string | null }> {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('relayTransactions')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('status', '=', 'sent')
        .as('inFlight'),
      eb
        .selectFrom('relayTransactions')
        .select('maxFeePerGas')
        .where('maxFeePerGas', 'is not', null)
        .orderBy('id', 'desc')
        .limit(1)
        .as('lastFeeWei'),
    ])
    .executeTakeFirstOrThrow();
  return { inFlight: row.inFlight ?? 0, lastFeeWei: row.lastFeeWei };
}

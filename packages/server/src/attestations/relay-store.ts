import type { Selectable } from 'kysely';
import type { Hex } from 'viem';
import type { Db, DB } from '../db/database.ts';
import { tableRows } from '../db/recordset.ts';
import { releaseMany } from '../idempotency/store.ts';
import { releaseOnchainQuota } from '../limits/quota.ts';
import type { AttestationOrigin } from './states.ts';

/** An on-chain attestation as a relay transaction carries it, with the prefix of the key that asked for it. */
export type RelayItem = Pick<
  Selectable<DB['attestations']>,
  | 'id'
  | 'accountId'
  | 'apiKeyId'
  | 'idempotencyKey'
  | 'batchId'
  | 'previousUid'
  | 'digitalSourceType'
  | 'offchainUid'
  | 'aiModel'
  | 'aiPromptHash'
> & {
  type: AttestationOrigin;
  contentHash: Hex;
  refUid: Hex | null;
  keyPrefix: Selectable<DB['apiKeys']>['prefix'];
};

/** How much one transaction may carry: items, and gas by what each item costs (its origin decides). */
interface ClaimLimit {
  items: number;
  /** The estimated gas of the transaction may not exceed this; undefined: items alone decide. */
  gas: bigint | undefined;
  /** The gas of a transaction with no items, and what each item adds. */
  baseGas: bigint;
  gasOf(type: AttestationOrigin): bigint;
  /** What an item that names a refUID adds (EAS stores it in a word of its own); 0 when absent. */
  refGas?: bigint;
}

/**
 * Claims the next pending on-chain attestations for one transaction: oldest first, within `limit`, never splitting
 * a batch (a batch is one transaction; the first one goes whatever the limit). Locks with SKIP LOCKED, so a second
 * relayer never takes the same rows; the journal entry (`open`, told the estimated gas) is made only when some are
 * waiting, and may be declined.
 */
export async function claimPending(
  db: Db,
  limit: ClaimLimit,
  open: (estimatedGas: bigint) => Promise<string | undefined>,
): Promise<{ journalId: string; count: number } | undefined> {
  const rows = await db
    .selectFrom('attestations')
    .select(['id', 'batchId', 'type', 'refUid'])
    .where('status', '=', 'pending')
    .where('relayTxId', 'is', null)
    .where('delegation', 'is', null)
    .orderBy('id')
    .limit(limit.items * 2)
    .forUpdate()
    .skipLocked()
    .$narrowType<{ type: AttestationOrigin }>()
    .execute();
  const gasOf = (row: { type: AttestationOrigin; refUid: string | null }) =>
    limit.gasOf(row.type) + (row.refUid === null ? 0n : (limit.refGas ?? 0n));
  const groups = new Map<string, { size: number; gas: bigint }>();
  for (const row of rows) {
    if (!row.batchId) continue;
    const group = groups.get(row.batchId) ?? { size: 0, gas: 0n };
    groups.set(row.batchId, { size: group.size + 1, gas: group.gas + gasOf(row) });
  }
  const chosen: string[] = [];
  const taken = new Set<string>();
  let gas = limit.baseGas;
  for (const row of rows) {
    if (row.batchId && taken.has(row.batchId)) {
      chosen.push(row.id);
      continue;
    }
    const group = row.batchId ? groups.get(row.batchId)! : { size: 1, gas: gasOf(row) };
    const full = chosen.length + group.size > limit.items || (limit.gas !== undefined && gas + group.gas > limit.gas);
    if (chosen.length > 0 && full) break;
    if (row.batchId) taken.add(row.batchId);
    gas += group.gas;
    chosen.push(row.id);
  }
  if (chosen.length === 0) return undefined;
  const journalId = await open(gas);
  if (journalId === undefined) return undefined;
  await db.updateTable('attestations').set({ relayTxId: journalId }).where('id', 'in', chosen).execute();
  return { journalId, count: chosen.length };
}

/** The items a journal entry carries, in the order they are attested on-chain. */
export async function itemsOf(db: Db, journalId: string): Promise<RelayItem[]> {
  return db
    .selectFrom('attestations as a')
    .innerJoin('apiKeys as k', 'k.id', 'a.apiKeyId')
    .select([
      'a.id',
      'a.type',
      'a.digitalSourceType',
      'a.aiModel',
      'a.aiPromptHash',
      'a.contentHash',
      'a.accountId',
      'k.prefix as keyPrefix',
      'a.idempotencyKey',
      'a.apiKeyId',
      'a.batchId',
      'a.previousUid',
      'a.refUid',
      'a.offchainUid',
    ])
    .where('a.relayTxId', '=', journalId)
    .orderBy('a.id')
    .$narrowType<{ type: AttestationOrigin; contentHash: Hex; refUid: Hex | null }>()
    .execute();
}

/** Marks the items mined: each gets its uid from the Attested log, in order. */
export async function confirmItems(
  db: Db,
  ids: string[],
  uids: string[],
  txHash: string,
  blockNumber: bigint,
): Promise<void> {
  await db
    .updateTable('attestations as a')
    .from(
      tableRows(
        'attestations',
        ids.map((id, i) => ({ id, uid: uids[i]! })),
        'v',
      ),
    )
    .set((eb) => ({ uid: eb.ref('v.uid'), txHash, blockNumber: blockNumber.toString(), status: 'confirmed' }))
    .whereRef('a.id', '=', 'v.id')
    .execute();
}

/** Fails a journal entry's items, gives back their quota and their Idempotency-Key claims (a retry runs afresh). */
export async function failItems(db: Db, journalId: string, reason: string): Promise<void> {
  const failed = await db
    .updateTable('attestations')
    .set({ status: 'failed', failureReason: reason.slice(0, 500) })
    .where('relayTxId', '=', journalId)
    .where('status', '=', 'pending')
    .returning(['accountId', 'apiKeyId', 'quotaPeriod', 'idempotencyKey'])
    .execute();
  const charged = new Map<string, { keyId: string; accountId: string; period: string; count: number }>();
  for (const row of failed) {
    if (!row.quotaPeriod) continue;
    const id = `${row.accountId}/${row.apiKeyId}/${row.quotaPeriod}`;
    const entry = charged.get(id) ?? {
      keyId: row.apiKeyId,
      accountId: row.accountId,
      period: row.quotaPeriod,
      count: 0,
    };
    entry.count++;
    charged.set(id, entry);
  }
  // in one order (account, then key) as reservations lock them, so two give-backs cannot wait on each other
  for (const [, { period, count, ...holder }] of [...charged].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    await releaseOnchainQuota(db, holder, { period, count });
  await releaseMany(
    db,
    failed.filter((row) => row.idempotencyKey).map((row) => ({ apiKeyId: row.apiKeyId, key: row.idempotencyKey! })),
  );
}

/** Puts a journal entry's items back in the queue (their transaction never reached the chain). */
export async function requeueItems(db: Db, journalId: string): Promise<void> {
  await db
    .updateTable('attestations')
    .set({ relayTxId: null })
    .where('relayTxId', '=', journalId)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * A reorg took the entry's transaction off the chain: its attestations are pending again, without a uid (none is on
 * the chain now), each keeping the uid it was reported with to tell, once mined again, whether it changed.
 */
export async function reviveItems(db: Db, journalId: string): Promise<void> {
  await db
    .updateTable('attestations')
    .set((eb) => ({ status: 'pending', previousUid: eb.ref('uid'), uid: null, txHash: null, blockNumber: null }))
    .where('relayTxId', '=', journalId)
    .where('status', '=', 'confirmed')
    .execute();
}

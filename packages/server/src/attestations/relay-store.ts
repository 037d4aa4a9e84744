import type { Hex } from 'viem';
import type { PgRow, Prisma } from '../db/rows.ts';
import type { Sql } from '../db/sql.ts';
import { releaseMany } from '../idempotency/store.ts';
import { releaseOnchainQuota } from '../limits/quota.ts';
import type { AttestationOrigin } from './states.ts';

/** An on-chain attestation as a relay transaction carries it, with the prefix of the key that asked for it. */
export type RelayItem = PgRow<
  Pick<Prisma.AttestationModel, 'id' | 'accountId' | 'apiKeyId' | 'idempotencyKey' | 'batchId' | 'previousUid'>
> & {
  type: AttestationOrigin;
  contentHash: Hex;
  keyPrefix: Prisma.ApiKeyModel['prefix'];
};

/** How much one transaction may carry: items, and gas by what each item costs (its origin decides). */
export interface ClaimLimit {
  items: number;
  /** The estimated gas of the transaction may not exceed this; undefined: items alone decide. */
  gas: bigint | undefined;
  /** The gas of a transaction with no items, and what each item adds. */
  baseGas: bigint;
  gasOf(type: AttestationOrigin): bigint;
}

/**
 * Claims the next pending on-chain attestations for one transaction: oldest first, within `limit`, never splitting
 * a batch (a batch is one transaction; the first one goes whatever the limit). Locks with SKIP LOCKED, so a second
 * relayer never takes the same rows; the journal entry (`open`, told the estimated gas) is made only when some are
 * waiting, and may be declined.
 */
export async function claimPending(
  sql: Sql,
  limit: ClaimLimit,
  open: (estimatedGas: bigint) => Promise<string | undefined>,
): Promise<{ journalId: string; count: number } | undefined> {
  const rows = await sql.query<{ id: string; batchId: string | null; type: AttestationOrigin }>(
    `SELECT id::text, batch_id AS "batchId", type FROM attestations
     WHERE status = 'pending' AND relay_tx_id IS NULL AND delegation IS NULL
     ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit.items * 2],
  );
  const groups = new Map<string, { size: number; gas: bigint }>();
  for (const row of rows) {
    if (!row.batchId) continue;
    const group = groups.get(row.batchId) ?? { size: 0, gas: 0n };
    groups.set(row.batchId, { size: group.size + 1, gas: group.gas + limit.gasOf(row.type) });
  }
  const chosen: string[] = [];
  const taken = new Set<string>();
  let gas = limit.baseGas;
  for (const row of rows) {
    if (row.batchId && taken.has(row.batchId)) {
      chosen.push(row.id);
      continue;
    }
    const group = row.batchId ? groups.get(row.batchId)! : { size: 1, gas: limit.gasOf(row.type) };
    const full = chosen.length + group.size > limit.items || (limit.gas !== undefined && gas + group.gas > limit.gas);
    if (chosen.length > 0 && full) break;
    if (row.batchId) taken.add(row.batchId);
    gas += group.gas;
    chosen.push(row.id);
  }
  if (chosen.length === 0) return undefined;
  const journalId = await open(gas);
  if (journalId === undefined) return undefined;
  await sql.query(`UPDATE attestations SET relay_tx_id = $1::bigint WHERE id = ANY($2::bigint[])`, [journalId, chosen]);
  return { journalId, count: chosen.length };
}

/** The items a journal entry carries, in the order they are attested on-chain. */
export async function itemsOf(sql: Sql, journalId: string): Promise<RelayItem[]> {
  return sql.query<RelayItem>(
    `SELECT a.id::text, a.type, a.content_hash AS "contentHash", a.account_id AS "accountId", k.prefix AS "keyPrefix",
            a.idempotency_key AS "idempotencyKey", a.api_key_id AS "apiKeyId", a.batch_id AS "batchId",
            a.previous_uid AS "previousUid"
     FROM attestations a JOIN api_keys k ON k.id = a.api_key_id WHERE a.relay_tx_id = $1::bigint ORDER BY a.id`,
    [journalId],
  );
}

/** Marks the items mined: each gets its uid from the Attested log, in order. */
export async function confirmItems(
  sql: Sql,
  ids: string[],
  uids: string[],
  txHash: string,
  blockNumber: bigint,
): Promise<void> {
  await sql.query(
    `UPDATE attestations a SET uid = v.uid, tx_hash = $1, block_number = $2, status = 'confirmed'
     FROM unnest($3::bigint[], $4::text[]) AS v(id, uid) WHERE a.id = v.id`,
    [txHash, blockNumber.toString(), ids, uids],
  );
}

/** Fails a journal entry's items, gives back their quota and their Idempotency-Key claims (a retry runs afresh). */
export async function failItems(sql: Sql, journalId: string, reason: string): Promise<void> {
  const failed = await sql.query<{
    account_id: string;
    api_key_id: string;
    quota_period: string | null;
    idempotency_key: string | null;
  }>(
    `UPDATE attestations SET status = 'failed', failure_reason = $2 WHERE relay_tx_id = $1::bigint AND status = 'pending'
     RETURNING account_id, api_key_id, quota_period, idempotency_key`,
    [journalId, reason.slice(0, 500)],
  );
  const charged = new Map<string, { keyId: string; accountId: string; period: string; count: number }>();
  for (const row of failed) {
    if (!row.quota_period) continue;
    const id = `${row.account_id}/${row.api_key_id}/${row.quota_period}`;
    const entry = charged.get(id) ?? {
      keyId: row.api_key_id,
      accountId: row.account_id,
      period: row.quota_period,
      count: 0,
    };
    entry.count++;
    charged.set(id, entry);
  }
  // in one order (account, then key) as reservations lock them, so two give-backs cannot wait on each other
  for (const [, { period, count, ...holder }] of [...charged].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    await releaseOnchainQuota(sql, holder, { period, count });
  await releaseMany(
    sql,
    failed.filter((row) => row.idempotency_key).map((row) => ({ apiKeyId: row.api_key_id, key: row.idempotency_key! })),
  );
}

/** Puts a journal entry's items back in the queue (their transaction never reached the chain). */
export async function requeueItems(sql: Sql, journalId: string): Promise<void> {
  await sql.query(`UPDATE attestations SET relay_tx_id = NULL WHERE relay_tx_id = $1::bigint AND status = 'pending'`, [
    journalId,
  ]);
}

/**
 * A reorg took the entry's transaction off the chain: its attestations are pending again, without a uid (none is on
 * the chain now), each keeping the uid it was reported with to tell, once mined again, whether it changed.
 */
export async function reviveItems(sql: Sql, journalId: string): Promise<void> {
  await sql.query(
    `UPDATE attestations SET status = 'pending', previous_uid = uid, uid = NULL, tx_hash = NULL, block_number = NULL
     WHERE relay_tx_id = $1::bigint AND status = 'confirmed'`,
    [journalId],
  );
}

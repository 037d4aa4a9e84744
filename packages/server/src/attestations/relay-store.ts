import type { Hex } from 'viem';
import type { PgRow, Prisma } from '../db/rows.ts';
import type { Sql } from '../db/sql.ts';
import { releaseMany } from '../idempotency/store.ts';
import { releaseOnchainQuota } from '../limits/quota.ts';
import type { AttestationOrigin } from './states.ts';

/** An on-chain attestation as a relay transaction carries it, with the prefix of the key that asked for it. */
export type RelayItem = PgRow<
  Pick<Prisma.AttestationModel, 'id' | 'accountId' | 'apiKeyId' | 'idempotencyKey' | 'batchId'>
> & {
  type: AttestationOrigin;
  contentHash: Hex;
  keyPrefix: Prisma.ApiKeyModel['prefix'];
};

/**
 * Claims the next pending on-chain attestations for one transaction: oldest first, at most `max`, never splitting
 * a batch (a batch is one transaction). Locks with SKIP LOCKED, so a second relayer never takes the same rows; the
 * journal entry (`open`) is made only when some are waiting.
 */
export async function claimPending(
  sql: Sql,
  max: number,
  open: () => Promise<string>,
): Promise<{ journalId: string; count: number } | undefined> {
  const rows = await sql.query<{ id: string; batch_id: string | null }>(
    `SELECT id::text, batch_id FROM attestations WHERE status = 'pending' AND relay_tx_id IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [max * 2],
  );
  const chosen: string[] = [];
  const groupSizes = new Map<string, number>();
  for (const row of rows) if (row.batch_id) groupSizes.set(row.batch_id, (groupSizes.get(row.batch_id) ?? 0) + 1);
  const taken = new Set<string>();
  for (const row of rows) {
    const size = row.batch_id ? groupSizes.get(row.batch_id)! : 1;
    if (row.batch_id && taken.has(row.batch_id)) {
      chosen.push(row.id);
      continue;
    }
    // a batch is never split, and the first group always goes, whatever `max` says
    if (chosen.length > 0 && chosen.length + size > max) break;
    if (row.batch_id) taken.add(row.batch_id);
    chosen.push(row.id);
  }
  if (chosen.length === 0) return undefined;
  const journalId = await open();
  await sql.query(`UPDATE attestations SET relay_tx_id = $1::bigint WHERE id = ANY($2::bigint[])`, [journalId, chosen]);
  return { journalId, count: chosen.length };
}

/** The items a journal entry carries, in the order they are attested on-chain. */
export async function itemsOf(sql: Sql, journalId: string): Promise<RelayItem[]> {
  return sql.query<RelayItem>(
    `SELECT a.id::text, a.type, a.content_hash AS "contentHash", a.account_id AS "accountId", k.prefix AS "keyPrefix",
            a.idempotency_key AS "idempotencyKey", a.api_key_id AS "apiKeyId", a.batch_id AS "batchId"
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
  const failed = await sql.query<{ api_key_id: string; quota_period: string | null; idempotency_key: string | null }>(
    `UPDATE attestations SET status = 'failed', failure_reason = $2 WHERE relay_tx_id = $1::bigint AND status = 'pending'
     RETURNING api_key_id, quota_period, idempotency_key`,
    [journalId, reason.slice(0, 500)],
  );
  const charged = new Map<string, { keyId: string; period: string; count: number }>();
  for (const row of failed) {
    if (!row.quota_period) continue;
    const id = `${row.api_key_id}/${row.quota_period}`;
    const entry = charged.get(id) ?? { keyId: row.api_key_id, period: row.quota_period, count: 0 };
    entry.count++;
    charged.set(id, entry);
  }
  for (const { keyId, period, count } of charged.values()) await releaseOnchainQuota(sql, keyId, { period, count });
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

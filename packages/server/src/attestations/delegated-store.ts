import type { Hex } from 'viem';
import type { Sql } from '../db/sql.ts';
import type { AttestationOrigin } from './states.ts';
import type { PendingAttestation } from './store.ts';

/** What a delegated on-chain request keeps for the relayer besides the attestation: the signed request's parts. */
export interface StoredDelegation {
  signature: { v: number; r: Hex; s: Hex };
  /** Unix seconds, decimal; '0' for none. */
  deadline: string;
}

/** The mark of an off-chain attestation a customer attester signed (its signature is in its package). */
export const OFFCHAIN_DELEGATION = { mode: 'offchain' } as const;

/** A delegated on-chain item as its transaction carries it, in nonce order. */
export interface DelegatedItem {
  id: string;
  attester: Hex;
  type: AttestationOrigin;
  contentHash: Hex;
  nonce: string;
  delegation: StoredDelegation;
}

/** Stores delegated on-chain attestations waiting for the relayer, each with its signed request; ids in order. */
export async function insertDelegatedPending(
  sql: Sql,
  rows: Array<PendingAttestation & { delegation: StoredDelegation; nonce: string }>,
): Promise<string[]> {
  const col = <K extends keyof (typeof rows)[number]>(key: K) => rows.map((row) => row[key]);
  const inserted = await sql.query<{ id: string }>(
    `INSERT INTO attestations (account_id, api_key_id, type, mode, status, content_hash, content_type, chain_id, schema_uid,
       attester, created_at, quota_period, idempotency_key, batch_id, batch_index, delegation, delegation_nonce)
     SELECT a, k, t, 'onchain', 'pending', h, ct, c, s, at, cr, q, i, b, bi, d, n
     FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[],
       $9::timestamptz[], $10::text[], $11::text[], $12::uuid[], $13::int[], $14::jsonb[], $15::numeric[])
       WITH ORDINALITY AS v(a, k, t, h, ct, c, s, at, cr, q, i, b, bi, d, n, o)
     ORDER BY o
     RETURNING id::text`,
    [
      col('accountId'),
      col('apiKeyId'),
      col('type'),
      col('contentHash'),
      col('contentType'),
      col('chainId'),
      col('schemaUid'),
      col('attester'),
      col('createdAt'),
      col('quotaPeriod'),
      col('idempotencyKey'),
      col('batchId'),
      col('batchIndex'),
      rows.map((row) => JSON.stringify(row.delegation)),
      col('nonce'),
    ],
  );
  return inserted.map((row) => row.id).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
}

/** Marks off-chain attestations as signed by a customer attester (in the transaction that inserted them). */
export async function markOffchainDelegated(sql: Sql, uids: string[]): Promise<void> {
  await sql.query(`UPDATE attestations SET delegation = $2::jsonb WHERE uid = ANY($1::text[])`, [
    uids,
    JSON.stringify(OFFCHAIN_DELEGATION),
  ]);
}

/** The highest nonce of this attester's requests the service holds (pending or mined); null when none. */
export async function highestHeldNonce(sql: Sql, chainId: number, attester: string): Promise<bigint | null> {
  const rows = await sql.query<{ nonce: string | null }>(
    `SELECT max(delegation_nonce)::text AS nonce FROM attestations
     WHERE chain_id = $1 AND attester = $2 AND delegation_nonce IS NOT NULL AND status <> 'failed'`,
    [chainId, attester],
  );
  const nonce = rows[0]?.nonce;
  return nonce == null ? null : BigInt(nonce);
}

/** The uids among these that are stored already (a replayed off-chain package). */
export async function existingUids(sql: Sql, uids: string[]): Promise<Set<string>> {
  const rows = await sql.query<{ uid: string }>(`SELECT uid FROM attestations WHERE uid = ANY($1::text[])`, [uids]);
  return new Set(rows.map((row) => row.uid));
}

/**
 * Claims the next delegated on-chain items for one transaction: the oldest waiting item's attester, then its waiting
 * items in nonce order (= id order) within `maxItems` and the gas budget, never splitting a batch; SKIP LOCKED as the
 * relayer's own claim. One attester per transaction keeps EAS's nonce order and the Attested logs in id order; one
 * transaction in flight per attester, since the gas of the next is estimated against the chain's current nonce.
 */
export async function claimDelegated(
  sql: Sql,
  limit: { items: number; gas: bigint | undefined; baseGas: bigint; gasOf(type: AttestationOrigin): bigint },
  open: (estimatedGas: bigint) => Promise<string | undefined>,
): Promise<{ journalId: string; count: number } | undefined> {
  const first = await sql.query<{ attester: string }>(
    `SELECT attester FROM attestations a
     WHERE delegation IS NOT NULL AND status = 'pending' AND relay_tx_id IS NULL AND NOT EXISTS (
       SELECT 1 FROM attestations f WHERE f.delegation IS NOT NULL AND f.status = 'pending'
         AND f.relay_tx_id IS NOT NULL AND f.attester = a.attester AND f.chain_id = a.chain_id)
     ORDER BY a.id LIMIT 1 FOR UPDATE SKIP LOCKED`,
  );
  if (first.length === 0) return undefined;
  const rows = await sql.query<{ id: string; batchId: string | null; type: AttestationOrigin }>(
    `SELECT id::text, batch_id AS "batchId", type FROM attestations
     WHERE delegation IS NOT NULL AND status = 'pending' AND relay_tx_id IS NULL AND attester = $1
     ORDER BY attestations.id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [first[0]!.attester, limit.items * 2],
  );
  const chosen: string[] = [];
  let gas = limit.baseGas;
  for (let i = 0; i < rows.length;) {
    // a batch's items are consecutive here (one attester, inserted together): take all of them or stop
    let end = i + 1;
    while (end < rows.length && rows[i]!.batchId && rows[end]!.batchId === rows[i]!.batchId) end++;
    const group = rows.slice(i, end);
    const groupGas = group.reduce((sum, row) => sum + limit.gasOf(row.type), 0n);
    const full = chosen.length + group.length > limit.items || (limit.gas !== undefined && gas + groupGas > limit.gas);
    if (chosen.length > 0 && full) break;
    chosen.push(...group.map((row) => row.id));
    gas += groupGas;
    i = end;
  }
  const journalId = await open(gas);
  if (journalId === undefined) return undefined;
  await sql.query(`UPDATE attestations SET relay_tx_id = $1::bigint WHERE id = ANY($2::bigint[])`, [journalId, chosen]);
  return { journalId, count: chosen.length };
}

/** The delegated items a journal entry carries, in nonce order; empty for a transaction of the relayer's own items. */
export async function delegatedItemsOf(sql: Sql, journalId: string): Promise<DelegatedItem[]> {
  return sql.query<DelegatedItem>(
    `SELECT id::text, attester, type, content_hash AS "contentHash", delegation_nonce::text AS nonce, delegation
     FROM attestations WHERE relay_tx_id = $1::bigint AND delegation IS NOT NULL ORDER BY attestations.id`,
    [journalId],
  );
}

import type { Sql } from '../db/sql.ts';
import { meter } from '../system/meter.ts';
import { entryHash, GENESIS_HASH, type AuditFields } from './chain.ts';

/** Appends one entry to its account's chain inside the caller's transaction. */
export function appendAudit(sql: Sql, fields: AuditFields): Promise<void> {
  return appendAuditEntries(sql, [fields]);
}

/**
 * Appends entries, in order, to their accounts' chains inside the caller's transaction, in two statements. The
 * first upserts the chain heads (sorted, so two transactions never lock them in opposite orders) and holds their
 * row locks until commit: concurrent appends to one account queue there and its chain never forks. Call it last
 * in a transaction to hold those locks as briefly as possible.
 */
export async function appendAuditEntries(sql: Sql, entries: AuditFields[]): Promise<void> {
  if (entries.length === 0) return;
  meter().audited(entries); // the business events' counters: what is audited happened
  const accounts = [...new Set(entries.map((e) => e.accountId))].sort();
  const heads = await sql.query<{ account_id: string; head_hash: string }>(
    `INSERT INTO audit_chains (account_id, head_hash, length) SELECT a, $2, 0 FROM unnest($1::uuid[]) AS a ORDER BY a
     ON CONFLICT (account_id) DO UPDATE SET length = audit_chains.length
     RETURNING account_id, head_hash`,
    [accounts, GENESIS_HASH],
  );
  const head = new Map(heads.map((h) => [h.account_id, h.head_hash]));
  const added = new Map<string, number>();
  const prevHashes: string[] = [];
  const hashes: string[] = [];
  for (const entry of entries) {
    const prev = head.get(entry.accountId)!;
    const hash = entryHash(prev, entry);
    prevHashes.push(prev);
    hashes.push(hash);
    head.set(entry.accountId, hash);
    added.set(entry.accountId, (added.get(entry.accountId) ?? 0) + 1);
  }
  const col = <K extends keyof AuditFields>(key: K) => entries.map((e) => e[key]);
  await sql.query(
    `WITH entries AS (
       INSERT INTO audit_entries (account_id, at, action, actor_key_prefix, resource, outcome, ip, request_id, details, prev_hash, hash)
       SELECT account_id, at, action, actor, resource, outcome, ip, request_id, details, prev, h
       FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::jsonb[], $10::text[], $11::text[])
         WITH ORDINALITY AS e(account_id, at, action, actor, resource, outcome, ip, request_id, details, prev, h, i)
       ORDER BY i
     )
     UPDATE audit_chains c SET head_hash = v.h, length = c.length + v.n
     FROM unnest($12::uuid[], $13::text[], $14::int[]) AS v(a, h, n) WHERE c.account_id = v.a`,
    [
      col('accountId'),
      col('at'),
      col('action'),
      col('actorKeyPrefix'),
      col('resource'),
      col('outcome'),
      col('ip'),
      col('requestId'),
      entries.map((e) => JSON.stringify(e.details)),
      prevHashes,
      hashes,
      [...added.keys()],
      [...added.keys()].map((a) => head.get(a)!),
      [...added.values()],
    ],
  );
}

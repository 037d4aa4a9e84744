import type { Sql } from '../db/sql.ts';
import { entryHash, GENESIS_HASH, type AuditFields } from './chain.ts';

/**
 * Appends one entry to the account's chain inside the caller's transaction. The upsert takes the row lock on the
 * chain head, so concurrent appends to one account queue here, briefly, and the chain never forks. Call it last in
 * a transaction to hold that lock for as short a time as possible.
 */
export async function appendAudit(sql: Sql, fields: AuditFields): Promise<void> {
  const [head] = await sql.query<{ head_hash: string }>(
    `INSERT INTO audit_chains (account_id, head_hash, length) VALUES ($1::uuid, $2, 0)
     ON CONFLICT (account_id) DO UPDATE SET length = audit_chains.length
     RETURNING head_hash`,
    [fields.accountId, GENESIS_HASH],
  );
  const prevHash = head!.head_hash;
  const hash = entryHash(prevHash, fields);
  await sql.query(
    `WITH entry AS (
       INSERT INTO audit_entries (account_id, at, action, actor_key_prefix, resource, outcome, ip, request_id, details, prev_hash, hash)
       VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11)
     )
     UPDATE audit_chains SET head_hash = $11, length = length + 1 WHERE account_id = $1::uuid`,
    [fields.accountId, fields.at, fields.action, fields.actorKeyPrefix, fields.resource, fields.outcome, fields.ip, fields.requestId, JSON.stringify(fields.details), prevHash, hash],
  );
}

import type { Tx } from '../db/prisma.ts';
import { entryHash, GENESIS_HASH, type AuditFields } from './chain.ts';

/**
 * Appends one entry to the account's chain inside the caller's transaction. The upsert takes the row lock on
 * the chain head, so concurrent appends to one account queue here, briefly, and the chain never forks. Call it
 * last in a transaction to hold that lock for as short a time as possible.
 */
export async function appendAudit(tx: Tx, fields: AuditFields): Promise<void> {
  const [head] = await tx.$queryRaw<{ head_hash: string }[]>`
    INSERT INTO audit_chains (account_id, head_hash, length) VALUES (${fields.accountId}::uuid, ${GENESIS_HASH}, 0)
    ON CONFLICT (account_id) DO UPDATE SET length = audit_chains.length
    RETURNING head_hash`;
  const prevHash = head!.head_hash;
  const hash = entryHash(prevHash, fields);
  await tx.$executeRaw`
    INSERT INTO audit_entries (account_id, at, action, actor_key_prefix, resource, outcome, ip, request_id, details, prev_hash, hash)
    VALUES (${fields.accountId}::uuid, ${fields.at}, ${fields.action}, ${fields.actorKeyPrefix}, ${fields.resource},
            ${fields.outcome}, ${fields.ip}, ${fields.requestId}, ${JSON.stringify(fields.details)}::jsonb, ${prevHash}, ${hash})`;
  await tx.$executeRaw`UPDATE audit_chains SET head_hash = ${hash}, length = length + 1 WHERE account_id = ${fields.accountId}::uuid`;
}

import type { Sql } from '../db/sql.ts';
import type { AuditFields } from './chain.ts';
import type { AuditEntry } from './contracts.ts';

/** An audit_entries row as the queries below return it. */
export interface AuditRow {
  id: string;
  accountId: string;
  at: Date;
  action: string;
  actorKeyPrefix: string | null;
  resource: string;
  outcome: string;
  ip: string | null;
  requestId: string | null;
  details: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

// `id` is selected as text (a bigint); ORDER BY must name the table's column, not this text alias
const COLUMNS = `id::text AS id, account_id::text AS "accountId", at, action, actor_key_prefix AS "actorKeyPrefix", resource, outcome, ip,
  request_id AS "requestId", details, prev_hash AS "prevHash", hash`;

export function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    accountId: row.accountId,
    at: row.at.toISOString(),
    action: row.action,
    actorKeyPrefix: row.actorKeyPrefix,
    resource: row.resource,
    outcome: row.outcome,
    ip: row.ip,
    requestId: row.requestId,
    details: row.details,
    prevHash: row.prevHash,
    hash: row.hash,
  };
}

/** What the hash covers, read back from a row. */
export function toFields(row: AuditRow): AuditFields {
  return {
    accountId: row.accountId,
    at: row.at,
    action: row.action,
    actorKeyPrefix: row.actorKeyPrefix,
    resource: row.resource,
    outcome: row.outcome as AuditFields['outcome'],
    ip: row.ip,
    requestId: row.requestId,
    details: row.details,
  };
}

export interface ExportQuery {
  accountId: string;
  from: Date;
  to: Date;
  action: string | undefined;
}

/**
 * One keyset page of an account's entries in [from, to), in chain order (id), after `afterId`. Bounded, on the
 * (account_id, id) index: each page is one short statement on a pooled connection, none held between pages.
 */
export function exportPage(sql: Sql, query: ExportQuery, afterId: string, limit: number): Promise<AuditRow[]> {
  return sql.query<AuditRow>(
    `SELECT ${COLUMNS} FROM audit_entries
     WHERE account_id = $1::uuid AND at >= $2 AND at < $3 AND ($4::text IS NULL OR action = $4) AND id > $5::bigint
     ORDER BY audit_entries.id LIMIT $6`,
    [query.accountId, query.from, query.to, query.action ?? null, afterId, limit],
  );
}

/** One keyset page of an account's whole chain, in chain order. */
export function chainPage(sql: Sql, accountId: string, afterId: string, limit: number): Promise<AuditRow[]> {
  return sql.query<AuditRow>(`SELECT ${COLUMNS} FROM audit_entries WHERE account_id = $1::uuid AND id > $2::bigint ORDER BY audit_entries.id LIMIT $3`, [accountId, afterId, limit]);
}

export interface ChainHead {
  accountId: string;
  accountName: string;
  headHash: string | null;
  length: number;
}

/** Accounts (all, or the one named) with their recorded chain head, if they have a chain. */
export function chainHeads(sql: Sql, accountName?: string): Promise<ChainHead[]> {
  return sql.query<ChainHead>(
    `SELECT a.id::text AS "accountId", a.name AS "accountName", c.head_hash AS "headHash", COALESCE(c.length, 0)::float8 AS length
     FROM accounts a LEFT JOIN audit_chains c ON c.account_id = a.id
     WHERE $1::text IS NULL OR a.name = $1 ORDER BY a.name`,
    [accountName ?? null],
  );
}

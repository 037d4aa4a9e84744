import type { Db } from '../db/prisma.ts';
import type { Prisma } from '../db/rows.ts';
import type { Sql } from '../db/sql.ts';
import type { AuditFields } from './chain.ts';
import type { ExportFormat } from './contracts.ts';
import { csvCellSql } from './csv.ts';

// The export (and the append, log.ts) are hot and raw SQL; the chain walk of `audit verify` is a CLI's cold read on
// Prisma (docs/decisions.md, "Persistence: which path is which").

/** An audit_entries row as `audit verify` reads it, its bigint id as text (the id a report names). */
export type AuditRow = Omit<Prisma.AuditEntryModel, 'id'> & { id: string };

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
    details: row.details as AuditFields['details'], // written from AuditFields, so always an object
  };
}

export interface ExportQuery {
  accountId: string;
  from: Date;
  to: Date;
  action: string | undefined;
}

/** `at` exactly as JavaScript's toISOString writes it (UTC, milliseconds). */
const AT_ISO = `to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const jsonValue = (column: string) => `COALESCE(to_json(${column})::text, 'null')`;

/**
 * Each row as the export writes it, rendered by PostgreSQL over the page's rows (`details` already as text, cast
 * once): a JSON object (keys in EXPORT_COLUMNS order, `details` as stored) or a CSV record (formula-safe cells, CRLF;
 * `details`, JSON text that starts with `{`, is always quoted, which RFC 4180 allows, and never needs the formula escape). The rows then never exist as JavaScript objects, which
 * keeps the export's garbage, and so the process's heap, small whatever the row count.
 */
const LINE: Record<ExportFormat, string> = {
  json: `'{"id":"' || id || '","accountId":"' || account_id || '","at":"' || ${AT_ISO} || '","action":' || ${jsonValue('action')}
    || ',"actorKeyPrefix":' || ${jsonValue('actor_key_prefix')} || ',"resource":' || ${jsonValue('resource')} || ',"outcome":' || ${jsonValue('outcome')}
    || ',"ip":' || ${jsonValue('ip')} || ',"requestId":' || ${jsonValue('request_id')} || ',"details":' || details
    || ',"prevHash":"' || prev_hash || '","hash":"' || hash || '"}'`,
  csv: `id || ',' || account_id || ',' || ${AT_ISO} || ',' || ${csvCellSql('action')} || ',' || ${csvCellSql('actor_key_prefix')} || ',' || ${csvCellSql('resource')}
    || ',' || ${csvCellSql('outcome')} || ',' || ${csvCellSql('ip')} || ',' || ${csvCellSql('request_id')} || ',' || '"' || replace(details, '"', '""') || '"'
    || ',' || prev_hash || ',' || hash || E'\\r\\n'`,
};

const IN_RANGE = `account_id = $1::uuid AND at >= $2 AND at < $3 AND ($4::text IS NULL OR action = $4)`;

/**
 * The first and last id of the entries in range, from the (account_id, at) index: the pages then walk only that
 * stretch of the (account_id, id) index, instead of first stepping over every older entry of the account.
 */
export async function exportBounds(sql: Sql, query: ExportQuery): Promise<{ first: string; last: string } | undefined> {
  const [row] = await sql.query<{ first: string | null; last: string | null }>(
    // `id + 0`: plain min(id) is planned as a walk of the primary key from the oldest entry of every account
    `SELECT min(id + 0)::text AS first, max(id + 0)::text AS last FROM audit_entries WHERE ${IN_RANGE}`,
    [query.accountId, query.from, query.to, query.action ?? null],
  );
  return row?.first && row.last ? { first: row.first, last: row.last } : undefined;
}

/**
 * One keyset page of an account's entries in [from, to), in chain order (id), after `afterId` up to `lastId`, each
 * rendered as a line of `format`. Bounded, on the (account_id, id) index: one short statement on a pooled
 * connection per page, none held between pages.
 */
export function exportPage(
  sql: Sql,
  query: ExportQuery,
  format: ExportFormat,
  afterId: string,
  lastId: string,
  limit: number,
): Promise<Array<{ id: string; line: string }>> {
  return sql.query<{ id: string; line: string }>(
    `SELECT e.id::text AS id, ${LINE[format]} AS line
     FROM (SELECT id, account_id, at, action, actor_key_prefix, resource, outcome, ip, request_id, details::text AS details, prev_hash, hash
           FROM audit_entries
           WHERE ${IN_RANGE} AND id > $5::bigint AND id <= $6::bigint
           ORDER BY id LIMIT $7) e
     ORDER BY e.id`,
    [query.accountId, query.from, query.to, query.action ?? null, afterId, lastId, limit],
  );
}

/** One keyset page of an account's whole chain, in chain order. */
export async function chainPage(db: Db, accountId: string, afterId: string, limit: number): Promise<AuditRow[]> {
  const rows = await db.auditEntry.findMany({
    where: { accountId, id: { gt: BigInt(afterId) } },
    orderBy: { id: 'asc' },
    take: limit,
  });
  return rows.map((row) => ({ ...row, id: row.id.toString() }));
}

export interface ChainHead {
  accountId: string;
  accountName: string;
  headHash: string | null;
  length: number;
}

/** Accounts (all, or the one named) with their recorded chain head, if they have a chain. */
export async function chainHeads(db: Db, accountName?: string): Promise<ChainHead[]> {
  const accounts = await db.account.findMany({
    where: accountName === undefined ? {} : { name: accountName },
    select: { id: true, name: true, auditChain: { select: { headHash: true, length: true } } },
    orderBy: { name: 'asc' },
  });
  return accounts.map((a) => ({
    accountId: a.id,
    accountName: a.name,
    headHash: a.auditChain?.headHash ?? null,
    length: Number(a.auditChain?.length ?? 0),
  }));
}

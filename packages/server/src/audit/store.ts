import { sql, type Selectable } from 'kysely';
import type { Db, DB } from '../db/database.ts';
import type { AuditFields } from './chain.ts';
import { EXPORT_COLUMNS, type ExportFormat } from './contracts.ts';
import { csvCellSql } from './csv.ts';

type AuditRow = Selectable<DB['auditEntries']>;

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
 * once; raw SQL, so the page's columns under the names PostgreSQL gives them): a JSON object (keys in EXPORT_COLUMNS order, `details` as stored) or a CSV record (formula-safe cells, CRLF;
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

/** An account's entries in [from, to), of one action if `action` says so. */
function inRange(db: Db, query: ExportQuery) {
  return db
    .selectFrom('auditEntries')
    .where('accountId', '=', query.accountId)
    .where('at', '>=', query.from)
    .where('at', '<', query.to)
    .$if(query.action !== undefined, (qb) => qb.where('action', '=', query.action!));
}

/**
 * The first and last id of the entries in range, from the (account_id, at) index: the pages then walk only that
 * stretch of the (account_id, id) index, instead of first stepping over every older entry of the account.
 */
export async function exportBounds(db: Db, query: ExportQuery): Promise<{ first: string; last: string } | undefined> {
  // `id + 0`: plain min(id) is planned as a walk of the primary key from the oldest entry of every account
  const row = await inRange(db, query)
    .select([
      sql<string | null>`min(${sql.ref('id')} + 0)::text`.as('first'),
      sql<string | null>`max(${sql.ref('id')} + 0)::text`.as('last'),
    ])
    .executeTakeFirst();
  return row?.first && row.last ? { first: row.first, last: row.last } : undefined;
}

/**
 * One keyset page of an account's entries in [from, to), in chain order (id), after `afterId` up to `lastId`, each
 * rendered as a line of `format` (LINE, over the page's columns as PostgreSQL names them). Bounded, on the
 * (account_id, id) index: one short statement on a pooled connection per page, none held between pages.
 */
export function exportPage(
  db: Db,
  query: ExportQuery,
  format: ExportFormat,
  afterId: string,
  lastId: string,
  limit: number,
): Promise<Array<{ id: string; line: string }>> {
  const page = inRange(db, query)
    // the export's columns, jsonb as its text (the line is built from it)
    .select([
      ...EXPORT_COLUMNS.filter((column) => column !== 'details'),
      sql<string>`${sql.ref('details')}::text`.as('details'),
    ])
    .where('id', '>', afterId)
    .where('id', '<=', lastId)
    .orderBy('id')
    .limit(limit);
  return db
    .selectFrom(page.as('e'))
    .select(['e.id', sql.raw<string>(LINE[format]).as('line')])
    .orderBy('e.id')
    .execute();
}

/** One keyset page of an account's whole chain, in chain order. */
export async function chainPage(db: Db, accountId: string, afterId: string, limit: number): Promise<AuditRow[]> {
  return db
    .selectFrom('auditEntries')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

export interface ChainHead {
  accountId: string;
  accountName: string;
  headHash: string | null;
  length: number;
}

/** These accounts with their recorded chain head (none and 0 for an account without a chain), in their order. */
export async function chainHeads(db: Db, accounts: Array<{ id: string; name: string }>): Promise<ChainHead[]> {
  const rows = await db
    .selectFrom('auditChains')
    .select(['accountId', 'headHash', 'length'])
    .where((eb) => eb('accountId', '=', eb.fn.any(eb.val(accounts.map((a) => a.id)))))
    .execute();
  const heads = new Map(rows.map((row) => [row.accountId, row]));
  return accounts.map((a) => ({
    accountId: a.id,
    accountName: a.name,
    headHash: heads.get(a.id)?.headHash ?? null,
    length: Number(heads.get(a.id)?.length ?? 0),
  }));
}

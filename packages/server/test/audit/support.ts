import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import type { AuditFields } from '../../src/audit/chain.ts';
import { appendAuditEntries } from '../../src/audit/append.ts';
import { inTransaction } from '../../src/db/database.ts';
import { randomIp, type TestService } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

/** GET /v1/audit/export with the raw body as text. */
export async function exportOf(
  svc: TestService,
  key: string,
  query = '',
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; body: any }> {
  const res = await fetch(`${svc.url}/v1/audit/export${query}`, {
    headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': randomIp(), ...headers },
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

const NULLABLE = new Set(['actorKeyPrefix', 'ip', 'requestId']);

/**
 * A CSV export read back with a standard parser into the JSON export's shape, as docs/audit.md tells a reader to:
 * drop one leading `'` (the formula escape), an empty cell is null, `details` is JSON.
 */
export function csvToEntries(text: string): Record<string, unknown>[] {
  const records = parse(text, { columns: true, record_delimiter: '\r\n' }) as Record<string, string>[];
  return records.map((record) =>
    Object.fromEntries(
      Object.entries(record).map(([column, cell]) => {
        const value = cell.startsWith("'") ? cell.slice(1) : cell;
        if (column === 'details') return [column, JSON.parse(value)];
        return [column, NULLABLE.has(column) && value === '' ? null : value];
      }),
    ),
  );
}

/** docs/audit.md's canonical form, written independently of the server's code: keys sorted at every depth. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** What a recipient does with exported rows: recompute each hash and check each row links to the one before. */
export function recomputeChain(rows: any[]): { hashesMatch: boolean; linked: boolean } {
  let hashesMatch = true;
  let linked = true;
  rows.forEach((row, i) => {
    const { id: _id, prevHash, hash, ...entry } = row;
    const computed = createHash('sha256')
      .update(`${prevHash}\n${canonical(entry)}`)
      .digest('hex');
    if (computed !== hash) hashesMatch = false;
    if (i > 0 && prevHash !== rows[i - 1].hash) linked = false;
  });
  return { hashesMatch, linked };
}

export async function accountIdOf(svc: TestService, account: string): Promise<string> {
  const row = await svc.db.selectFrom('accounts').select('id').where('name', '=', account).executeTakeFirstOrThrow();
  return row.id;
}

/** Appends entries to an account's chain exactly as the service does (valid hashes), with the times given. */
export async function appendEntries(
  svc: TestService,
  accountId: string,
  entries: Array<Partial<AuditFields> & { at: Date }>,
): Promise<void> {
  await inTransaction(svc.infrastructure.db, (tx) =>
    appendAuditEntries(
      tx,
      entries.map((e) => ({
        accountId,
        action: 'test.entry',
        actorKeyPrefix: null,
        resource: 'test:1',
        outcome: 'success',
        ip: null,
        requestId: null,
        details: {},
        ...e,
      })),
    ),
  );
}

/** Actions of an account's audit log straight from the table, in chain order. */
export async function actionsInTable(svc: TestService, accountId: string): Promise<string[]> {
  const rows = await svc.db
    .selectFrom('auditEntries')
    .select('action')
    .where('accountId', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.action);
}

/** Waits (bounded) until `check` holds: for entries written after the answer (auth failures are not awaited). */
export async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  await waitFor(check, { timeout: ms });
}

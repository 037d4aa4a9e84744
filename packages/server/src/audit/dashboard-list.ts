import type { Sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { invalidCursor } from '../http/input-rules.ts';
import type { EntryListInput, EntryListPage } from './dashboard-contracts.ts';
import { entryPage, type EntryPageQuery } from './dashboard-store.ts';

/** Row ids are PostgreSQL bigints: 1 up to 2^63 - 1. */
const MAX_ID = 9_223_372_036_854_775_807n;

/** Opaque page cursors: the last entry's time and id, base64url-encoded. */
function encodeCursor(entry: { at: Date; id: string }): string {
  return Buffer.from(`${entry.at.toISOString()}|${entry.id}`).toString('base64url');
}

/** The position a cursor stands for; 400 before any query for anything we did not issue (an impossible date too). */
function decodeCursor(cursor: string): { at: Date; id: string } {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|([1-9]\d{0,18})$/.exec(
    Buffer.from(cursor, 'base64url').toString('utf8'),
  );
  const [, text = '', id = ''] = match ?? [];
  const at = new Date(text);
  // a real instant prints back as itself (2026-02-30 does not); only the exact text we encode is ours
  const real = !Number.isNaN(at.getTime()) && at.toISOString() === text;
  if (!match || !real || BigInt(id) > MAX_ID || encodeCursor({ at, id }) !== cursor) throw invalidCursor();
  return { at, id };
}

function invalidRange(): AppError {
  const message = 'must be before to';
  return new AppError('VALIDATION_FAILED', `Invalid request: from: ${message}`, {
    errors: [{ path: 'from', message }],
  });
}

/** The actor filter: an email names a member (emails are stored lower-case), anything else a key prefix. */
function actorFilter(actor: string | undefined): Pick<EntryPageQuery, 'actorKeyPrefix' | 'actorEmail'> {
  if (actor === undefined) return {};
  return actor.includes('@') ? { actorEmail: actor.toLowerCase() } : { actorKeyPrefix: actor.toLowerCase() };
}

/** One page of an account's audit log for its dashboard, newest first, with its filters. */
export async function listEntries(sql: Sql, accountId: string, input: EntryListInput): Promise<EntryListPage> {
  const before = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
  const from = input.from === undefined ? undefined : new Date(input.from);
  const to = input.to === undefined ? undefined : new Date(input.to);
  if (from && to && from.getTime() >= to.getTime()) throw invalidRange();
  const rows = await entryPage(sql, {
    accountId,
    action: input.action,
    ...actorFilter(input.actor),
    from,
    to,
    before,
    limit: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    items: page.map((row) => ({ ...row, at: row.at.toISOString() })),
    nextCursor: rows.length > input.limit && last ? encodeCursor(last) : null,
  };
}

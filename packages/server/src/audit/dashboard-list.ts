import type { Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { pageOf, positionCursor } from '../http/cursor.ts';
import type { EntryListInput, EntryListPage } from './dashboard-contracts.ts';
import { entryPage, type EntryPageQuery } from './dashboard-store.ts';

/** Opaque page cursors: the last entry's time and id. */
const cursor = positionCursor('bigint');

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
export async function listEntries(db: Db, accountId: string, input: EntryListInput): Promise<EntryListPage> {
  const before = input.cursor === undefined ? undefined : cursor.decode(input.cursor);
  const from = input.from === undefined ? undefined : new Date(input.from);
  const to = input.to === undefined ? undefined : new Date(input.to);
  if (from && to && from.getTime() >= to.getTime()) throw invalidRange();
  const rows = await entryPage(db, {
    accountId,
    action: input.action,
    ...actorFilter(input.actor),
    from,
    to,
    before,
    limit: input.limit + 1,
  });
  const page = pageOf(rows, input.limit, (last) => cursor.encode(last.at, last.id));
  return { data: page.rows.map((row) => ({ ...row, at: row.at.toISOString() })), nextCursor: page.nextCursor };
}

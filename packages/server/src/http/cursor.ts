import { invalidCursor } from './input-rules.ts';

/** Row ids are PostgreSQL bigints: 1 up to 2^63 - 1. */
const MAX_ID = 9_223_372_036_854_775_807n;
const BIGINT_ID = '[1-9]\\d{0,18}';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const INSTANT = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';

const toText = (cursor: string) => Buffer.from(cursor, 'base64url').toString('utf8');
const fromText = (text: string) => Buffer.from(text).toString('base64url');

/**
 * One page of a query that asked for `limit + 1` rows: the first `limit`, and the cursor of the last of them while
 * more follow.
 */
export function pageOf<T>(rows: T[], limit: number, cursorOf: (last: T) => string) {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, nextCursor: rows.length > limit && last !== undefined ? cursorOf(last) : null };
}

/** Opaque cursors of a page ordered by row id alone: the last row's id. */
export const idCursor = {
  encode: (id: bigint): string => fromText(`id:${id}`),
  /** The id a cursor stands for; undefined for anything we did not issue (checked before any query sees it). */
  decode(cursor: string): bigint | undefined {
    const match = new RegExp(`^id:(${BIGINT_ID})$`).exec(toText(cursor));
    if (!match) return undefined;
    const id = BigInt(match[1]!);
    // base64url decoding skips characters outside its alphabet, so only the exact text we encode is ours
    return id <= MAX_ID && idCursor.encode(id) === cursor ? id : undefined;
  },
};

/**
 * Opaque cursors of a page ordered by a time and then a row id (a bigint id or a UUID): `<ISO time>|<id>`. `decode`
 * answers 400 INVALID_CURSOR, before any query, for anything we did not issue, an impossible date included.
 */
export function positionCursor(id: 'bigint' | 'uuid') {
  const pattern = new RegExp(`^(${INSTANT})\\|(${id === 'bigint' ? BIGINT_ID : UUID})$`);
  const encode = (at: Date | string, rowId: string): string =>
    fromText(`${typeof at === 'string' ? at : at.toISOString()}|${rowId}`);
  return {
    encode,
    decode(cursor: string): { at: Date; id: string } {
      const [, text = '', rowId = ''] = pattern.exec(toText(cursor)) ?? [];
      const at = new Date(text);
      // a real instant prints back as itself (2026-02-30 does not); only the exact text we encode is ours
      const real = !Number.isNaN(at.getTime()) && at.toISOString() === text;
      if (!real || (id === 'bigint' && BigInt(rowId) > MAX_ID) || encode(at, rowId) !== cursor) throw invalidCursor();
      return { at, id: rowId };
    },
  };
}

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

/**
 * The one decoding of every cursor: the fields of `pattern` in a cursor, when it is exactly one we issue (`reissue`
 * prints them back as the same cursor: base64url decoding skips characters outside its alphabet, and 2026-02-30
 * would parse). Anything else is a 400 VALIDATION_FAILED naming `cursor`, before any query sees it.
 */
function decodeCursor(cursor: string, pattern: RegExp, reissue: (fields: string[]) => string | undefined): string[] {
  const fields = pattern.exec(toText(cursor))?.slice(1);
  if (!fields || reissue(fields) !== cursor) throw invalidCursor();
  return fields;
}

/** A bigint row id within PostgreSQL's range. */
const bigintId = (text: string): bigint | undefined => (BigInt(text) <= MAX_ID ? BigInt(text) : undefined);

const ID_PATTERN = new RegExp(`^id:(${BIGINT_ID})$`);

/** Opaque cursors of a page ordered by row id alone: the last row's id. */
export const idCursor = {
  encode: (id: bigint): string => fromText(`id:${id}`),
  /** The id a cursor stands for; 400 for anything we did not issue (decodeCursor). */
  decode(cursor: string): bigint {
    const [text = ''] = decodeCursor(cursor, ID_PATTERN, ([id = '']) => {
      const value = bigintId(id);
      return value === undefined ? undefined : idCursor.encode(value);
    });
    return BigInt(text);
  },
};

/**
 * Opaque cursors of a page ordered by a time and then a row id (a bigint id or a UUID): `<ISO time>|<id>`; `decode`
 * answers 400 for anything we did not issue, an impossible date included (decodeCursor).
 */
export function positionCursor(id: 'bigint' | 'uuid') {
  const pattern = new RegExp(`^(${INSTANT})\\|(${id === 'bigint' ? BIGINT_ID : UUID})$`);
  const encode = (at: Date | string, rowId: string): string =>
    fromText(`${typeof at === 'string' ? at : at.toISOString()}|${rowId}`);
  return {
    encode,
    decode(cursor: string): { at: Date; id: string } {
      const [text = '', rowId = ''] = decodeCursor(cursor, pattern, ([at = '', row = '']) => {
        const instant = new Date(at);
        // a real instant prints back as itself (2026-02-30 does not)
        if (Number.isNaN(instant.getTime()) || instant.toISOString() !== at) return undefined;
        return id === 'bigint' && bigintId(row) === undefined ? undefined : encode(instant, row);
      });
      return { at: new Date(text), id: rowId };
    },
  };
}

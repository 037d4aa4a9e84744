import { EXPORT_COLUMNS } from './contracts.ts';

/**
 * CSV cells, RFC 4180. A value a spreadsheet would run as a formula (leading `=`, `+`, `-`, `@`, tab or CR; OWASP
 * "CSV injection") is prefixed with `'`; so is a value that already starts with `'`, which keeps the escape
 * reversible: a reader drops one leading `'` from every cell that has one. A cell holding `"`, `,`, CR or LF is
 * quoted, its quotes doubled. Null is the empty cell. PostgreSQL renders the export's records (csvCellSql), so the
 * rows never become JavaScript objects; csvField is the same rule in TypeScript, and a test holds the two equal.
 */
const FORMULA_START = /^[=+\-@\t\r']/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(value: string | null): string {
  if (value === null) return '';
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** Undoes the formula escape on a parsed cell (what a reader does). */
export function unescapeCsvCell(cell: string): string {
  return cell.startsWith("'") ? cell.slice(1) : cell;
}

/** csvField as a SQL expression over a text expression `value` (named once per use; keep it a column). */
export function csvCellSql(value: string): string {
  const escaped = `CASE WHEN left(${value}, 1) IN ('=', '+', '-', '@', E'\\t', E'\\r', '''') THEN '''' || ${value} ELSE ${value} END`;
  return `CASE WHEN ${value} IS NULL THEN '' WHEN ${value} ~ E'[",\\r\\n]' THEN '"' || replace(${escaped}, '"', '""') || '"' ELSE ${escaped} END`;
}

/** The header record, CRLF-terminated. */
export const CSV_HEADER = `${EXPORT_COLUMNS.join(',')}\r\n`;

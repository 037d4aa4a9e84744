import { canonicalJson } from './chain.ts';
import { EXPORT_COLUMNS, type AuditEntry } from './contracts.ts';

/** First characters a spreadsheet reads as the start of a formula (OWASP "CSV injection"), and our escape mark. */
const FORMULA_START = /^[=+\-@\t\r']/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One RFC 4180 field. A value a spreadsheet would run as a formula (leading `=`, `+`, `-`, `@`, tab or CR) is
 * prefixed with `'`; so is a value that already starts with `'`, which keeps the escape reversible: a reader drops
 * one leading `'` from every cell that has one. Null is the empty field.
 */
export function csvField(value: string | null): string {
  if (value === null) return '';
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** Undoes csvField's formula escape on a parsed cell (for readers and tests). */
export function unescapeCsvCell(cell: string): string {
  return cell.startsWith("'") ? cell.slice(1) : cell;
}

/** The header record, CRLF-terminated. */
export const CSV_HEADER = `${EXPORT_COLUMNS.join(',')}\r\n`;

/** One entry as a CRLF-terminated record; `details` is its canonical JSON (the form that is hashed). */
export function csvRecord(entry: AuditEntry): string {
  return (
    EXPORT_COLUMNS.map((column) => {
      const value = entry[column];
      return csvField(column === 'details' ? canonicalJson(value) : (value as string | null));
    }).join(',') + '\r\n'
  );
}

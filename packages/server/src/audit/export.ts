import type { Sql } from '../db/sql.ts';
import { CSV_HEADER, csvRecord } from './csv.ts';
import type { AuditEntry, ExportFormat } from './contracts.ts';
import { exportPage, toEntry, type AuditRow, type ExportQuery } from './store.ts';

/** Rows per keyset page: one page (and the next, prefetched) is all an export holds in memory. */
export const EXPORT_PAGE_ROWS = 2000;

/** The entries of an export, page by page, in chain order. */
export type PageSource = () => AsyncIterable<AuditEntry[]>;

/**
 * An export under way: what the REST layer streams (`chunks()`: CSV records or a JSON array, page by page) and,
 * being an async iterable of entries, what a streaming tRPC link can carry too. Nothing is read before the first
 * page is asked for.
 */
export class AuditExport implements AsyncIterable<AuditEntry> {
  readonly format: ExportFormat;
  readonly filename: string;
  readonly #pages: PageSource;

  constructor(opts: { format: ExportFormat; filename: string; pages: PageSource }) {
    this.format = opts.format;
    this.filename = opts.filename;
    this.#pages = opts.pages;
  }

  get contentType(): string {
    return this.format === 'csv' ? 'text/csv; charset=utf-8; header=present' : 'application/json; charset=utf-8';
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<AuditEntry> {
    for await (const page of this.#pages()) yield* page;
  }

  /** The body, one string per page: the CSV header then records, or a JSON array with one entry per line. */
  async *chunks(): AsyncGenerator<string> {
    const csv = this.format === 'csv';
    let first = true;
    for await (const page of this.#pages()) {
      let text = csv ? (first ? CSV_HEADER : '') : first ? '[\n' : ',\n';
      if (csv) for (const entry of page) text += csvRecord(entry);
      else text += page.map((entry) => JSON.stringify(entry)).join(',\n');
      first = false;
      yield text;
    }
    if (csv) {
      if (first) yield CSV_HEADER;
    } else {
      yield first ? '[]\n' : '\n]\n';
    }
  }
}

/** Keyset pages of the query, each next page's query started while the current one is being written. */
export function keysetPages(sql: Sql, query: ExportQuery, pageRows = EXPORT_PAGE_ROWS): PageSource {
  return async function* () {
    let next: Promise<AuditRow[]> | undefined = exportPage(sql, query, '0', pageRows);
    while (next) {
      const rows: AuditRow[] = await next;
      next = undefined;
      if (rows.length === pageRows) {
        next = exportPage(sql, query, rows.at(-1)!.id, pageRows);
        next.catch(() => undefined); // a reader that stops early leaves it unawaited; its failure is not unhandled
      }
      if (rows.length > 0) yield rows.map(toEntry);
    }
  };
}

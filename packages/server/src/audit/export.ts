import type { Db } from '../db/database.ts';
import { StreamedBody } from '../http/streamed.ts';
import { CSV_HEADER } from './csv.ts';
import type { AuditEntry, ExportFormat } from './contracts.ts';
import { exportBounds, exportPage, type ExportQuery } from './store.ts';

/**
 * Rows per keyset page: one page (and the next, prefetched) is all an export holds. Each row arrives as one string
 * rendered by PostgreSQL (store.ts). Small on purpose: a page under way survives young collections and is promoted,
 * and V8 grows the old heap with what is promoted: smaller pages held a million-row export lower (BENCHMARKS.md,
 * "Audit export, 1,000,000 entries").
 */
export const EXPORT_PAGE_ROWS = 100;

/** Rows per written string: about 40 KiB, well under V8's large-object threshold (128 KiB). */
const CHUNK_ROWS = 100;

/** An export's rows page by page in chain order, each row already a line of `format`. */
export type PageSource = (format: ExportFormat) => AsyncIterable<string[]>;

/**
 * An export under way: what the REST layer streams (`chunks()`: CSV records or a JSON array, page by page) and,
 * being an async iterable of entries, what a streaming tRPC link can carry too. Nothing is read before the first
 * page is asked for.
 */
export class AuditExport extends StreamedBody implements AsyncIterable<AuditEntry> {
  readonly format: ExportFormat;
  readonly filename: string;
  readonly #pages: PageSource;

  constructor(opts: { format: ExportFormat; filename: string; pages: PageSource }) {
    super();
    this.format = opts.format;
    this.filename = opts.filename;
    this.#pages = opts.pages;
  }

  get contentType(): string {
    return this.format === 'csv' ? 'text/csv; charset=utf-8; header=present' : 'application/json; charset=utf-8';
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<AuditEntry> {
    for await (const lines of this.#pages('json')) for (const line of lines) yield JSON.parse(line) as AuditEntry;
  }

  /**
   * The body: the CSV header then records, or a JSON array with one entry per line, in strings of at most
   * CHUNK_ROWS rows (a larger string would be allocated in V8's large-object space, which only a full collection
   * frees, and the heap would grow with the export).
   */
  async *chunks(): AsyncGenerator<string> {
    const csv = this.format === 'csv';
    let first = true;
    for await (const lines of this.#pages(this.format)) {
      for (let i = 0; i < lines.length; i += CHUNK_ROWS) {
        const part = lines.slice(i, i + CHUNK_ROWS);
        yield csv ? (first ? CSV_HEADER : '') + part.join('') : (first ? '[\n' : ',\n') + part.join(',\n');
        first = false;
      }
    }
    if (csv) {
      if (first) yield CSV_HEADER;
    } else {
      yield first ? '[]\n' : '\n]\n';
    }
  }
}

/** Keyset pages of the query, each next page's query under way while the current one is being written. */
export function keysetPages(db: Db, query: ExportQuery, pageRows = EXPORT_PAGE_ROWS): PageSource {
  return async function* (format) {
    const bounds = await exportBounds(db, query);
    if (!bounds) return;
    const fetch = (afterId: string) => {
      const page = exportPage(db, query, format, afterId, bounds.last, pageRows).then((rows) => ({
        lastId: rows.at(-1)?.id,
        lines: rows.map((row) => row.line),
      }));
      page.catch(() => undefined); // a reader that stops early leaves the prefetch unawaited; its failure is not unhandled
      return page;
    };
    let next: ReturnType<typeof fetch> | undefined = fetch(String(BigInt(bounds.first) - 1n));
    while (next) {
      const page: Awaited<ReturnType<typeof fetch>> = await next;
      next = page.lines.length === pageRows ? fetch(page.lastId!) : undefined;
      if (page.lines.length > 0) yield page.lines;
    }
  };
}

import { AttestationServiceError } from './errors.ts';
import { restCall, type RestDeps } from './rest.ts';
import type { AuditEntry, AuditExportInput } from './types.ts';

/**
 * Splits a JSON array that arrives in pieces into its elements (objects or arrays) as soon as each is complete,
 * holding only the element being read: the SDK's audit export stays flat in memory whatever its size.
 */
export class JsonArrayParser {
  #buf = '';
  #pos = 0;
  #start = -1;
  #depth = 0;
  #inString = false;
  #escaped = false;
  #state: 'before' | 'inside' | 'after' = 'before';

  /** Feeds the next piece of text; returns the elements it completed. */
  push(text: string): unknown[] {
    const buf = this.#buf + text;
    const out: unknown[] = [];
    let i = this.#pos;
    for (; i < buf.length; i++) {
      const c = buf[i]!;
      if (this.#start >= 0) {
        if (this.#inString) {
          if (this.#escaped) this.#escaped = false;
          else if (c === '\\') this.#escaped = true;
          else if (c === '"') this.#inString = false;
        } else if (c === '"') this.#inString = true;
        else if (c === '{' || c === '[') this.#depth++;
        else if ((c === '}' || c === ']') && --this.#depth === 0) {
          out.push(JSON.parse(buf.slice(this.#start, i + 1)));
          this.#start = -1;
        }
        continue;
      }
      if (c === ' ' || c === '\n' || c === '\r' || c === '\t') continue;
      if (this.#state === 'before' && c === '[') this.#state = 'inside';
      else if (this.#state === 'inside' && c === ',') continue;
      else if (this.#state === 'inside' && c === ']') this.#state = 'after';
      else if (this.#state === 'inside' && (c === '{' || c === '[')) {
        this.#start = i;
        this.#depth = 1;
      } else throw new SyntaxError(`Unexpected ${JSON.stringify(c)} in the streamed JSON array`);
    }
    // keep only what is still unread: the element under way
    const keep = this.#start >= 0 ? this.#start : i;
    this.#buf = buf.slice(keep);
    this.#pos = i - keep;
    if (this.#start >= 0) this.#start = 0;
    return out;
  }

  /** True once the closing `]` has been read. */
  get complete(): boolean {
    return this.#state === 'after';
  }
}

function query(input: AuditExportInput): string {
  const params = new URLSearchParams({ format: 'json' });
  const instant = (value: string | Date) => (value instanceof Date ? value.toISOString() : value);
  if (input.from !== undefined) params.set('from', instant(input.from));
  if (input.to !== undefined) params.set('to', instant(input.to));
  if (input.action !== undefined) params.set('action', input.action);
  return params.toString();
}

/**
 * Streams the caller's audit entries in [from, to) over GET /v1/audit/export, parsing the JSON array as it arrives.
 * A connection cut mid-way (the server aborts on a failure after the first byte) throws NETWORK_ERROR: the entries
 * already yielded are real, but the export is incomplete.
 */
export async function* streamAuditExport(deps: RestDeps, input: AuditExportInput = {}): AsyncGenerator<AuditEntry> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (deps.apiKey) headers.authorization = `Bearer ${deps.apiKey}`;
  const path = `/v1/audit/export?${query(input)}`;
  const res = await restCall(deps, path, { headers, signal: input.signal }, 'The audit export');
  const requestId = res.headers.get('x-request-id') ?? undefined;
  const parser = new JsonArrayParser();
  const decoder = new TextDecoder();
  const reader = res.body!.getReader();
  let read = 0;
  const cutOff = (cause?: unknown) =>
    new AttestationServiceError(
      'NETWORK_ERROR',
      `The audit export was cut off after ${read} entries; it is incomplete.`,
      {},
      res.status,
      requestId,
      { cause },
    );
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw cutOff(error);
      }
      const text = chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      for (const entry of parser.push(text)) {
        read++;
        yield entry as AuditEntry;
      }
      if (chunk.done) break;
    }
    if (!parser.complete) throw cutOff();
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

import { ConfigError } from '../config.ts';

/**
 * The service's tracing, as its code sees it: spans around work, W3C `traceparent`s to carry a trace through the
 * database and the job queue, and the ids a log line carries. OpenTelemetry is loaded (tracing-sdk.ts) only when the
 * OTEL_* variables ask for traces; until then every call here is an empty function's, and no OTel module is in the
 * process (docs/operations.md, "Tracing").
 */

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** A span being recorded: attributes added as the work learns them, the error it ended with. */
export interface ActiveSpan {
  set(attributes: SpanAttributes): void;
  fail(error: unknown): void;
  /** This span's `traceparent`, to carry it where the context does not flow (a row, a job). */
  traceparent(): string | undefined;
}

export interface SpanOptions {
  attributes?: SpanAttributes;
  /** The parent, from a row or a job (`traceparent`); the active span's when absent. */
  parent?: string | null | undefined;
  /** A span of its own trace (a job run, a transaction), not a child of the active one. */
  root?: boolean;
  /** Spans this one is linked to (`traceparent`s): what it serves in other traces. */
  links?: Array<string | null | undefined>;
  kind?: 'server' | 'client' | 'producer' | 'consumer' | 'internal';
}

/** A span recorded after the fact, its times known (an item's wait for its block). */
export interface FinishedSpan extends SpanOptions {
  start: Date;
  end: Date;
}

/** An incoming HTTP request's span: the route is known once routed, the status once answered. */
export interface ServerSpan {
  run<T>(fn: () => T): T;
  end(route: string, status: number): void;
}

export interface Tracer {
  readonly on: boolean;
  /** Runs `fn` in a new span (ended when its promise settles; failed when it rejects). */
  span<T>(name: string, fn: (span: ActiveSpan) => Promise<T>, options?: SpanOptions): Promise<T>;
  /** Records a finished span; returns its `traceparent`. */
  record(name: string, span: FinishedSpan): string | undefined;
  /**
   * The span of a request to the API: a child of the caller's `traceparent` header when OTEL_TRUSTED_PARENTS trusts
   * the client address, else a root of its own linked to it.
   */
  server(method: string, traceparent: string | undefined, clientAddress?: string): ServerSpan;
  /** Runs `fn` outside any span: work done for several callers (a group commit) is none of theirs alone. */
  detached<T>(fn: () => T): T;
  traceparent(): string | undefined;
  /** The active span's ids for a log line, if any. */
  logIds(): { trace_id: string; span_id: string } | undefined;
}

const NOOP_SPAN: ActiveSpan = { set: () => undefined, fail: () => undefined, traceparent: () => undefined };
const NOOP_SERVER: ServerSpan = { run: (fn) => fn(), end: () => undefined };

const OFF: Tracer = {
  on: false,
  span: (_name, fn) => fn(NOOP_SPAN),
  record: () => undefined,
  server: () => NOOP_SERVER,
  detached: (fn) => fn(),
  traceparent: () => undefined,
  logIds: () => undefined,
};

let current: Tracer = OFF;

/** The process's tracer: OpenTelemetry's once tracing started, else one that records nothing. */
export function tracer(): Tracer {
  return current;
}

/** Installs the started tracer; the returned function takes it out (at shutdown). */
export function installTracer(installed: Tracer): () => void {
  current = installed;
  return () => {
    if (current === installed) current = OFF;
  };
}

/** A W3C traceparent: version 00, trace id, parent span id, flags. */
export const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

const EXPORTERS = new Set(['otlp', 'console', 'none']);

/**
 * Whether the OTEL_* variables ask for traces, as the OpenTelemetry SDKs read them: not with OTEL_SDK_DISABLED=true;
 * with OTEL_TRACES_EXPORTER `otlp` (or `console`); unset, when an OTLP endpoint is given. Throws, naming the variable,
 * for an exporter this service does not have.
 */
export function tracingWanted(env: NodeJS.ProcessEnv): false | { exporter: 'otlp' | 'console' } {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const listed = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const unknown = listed.filter((name) => !EXPORTERS.has(name));
  if (unknown.length > 0)
    throw new ConfigError(
      `invalid configuration: OTEL_TRACES_EXPORTER=${unknown.join(',')} is not supported: set it to otlp, console or none`,
    );
  if (listed.includes('otlp')) return { exporter: 'otlp' };
  if (listed.includes('console')) return { exporter: 'console' };
  if (listed.length > 0) return false; // none
  return env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? { exporter: 'otlp' } : false;
}

/** The `traceparent` a job's payload carries, if any (a job queued inside a span carries its caller's). */
export function traceparentIn(payload: unknown): string | undefined {
  const value = (payload as { traceparent?: unknown } | null)?.traceparent;
  return typeof value === 'string' && TRACEPARENT.test(value) ? value : undefined;
}

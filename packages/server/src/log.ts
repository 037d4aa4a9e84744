import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Paths that may hold a secret; pino replaces them wherever a log call passes them. */
const REDACT = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'apiKey',
  'key',
  'secret',
  'privateKey',
  'content',
  '*.apiKey',
  '*.secret',
  '*.privateKey',
  '*.content',
];

/**
 * The process logger: JSON lines on stdout, secrets redacted. Lines are buffered (4 KiB) rather than written one
 * syscall each, which cost a share of a request's CPU (docs/decisions.md, "Performance"); `flushLogger` runs at shutdown. Tests pass a stream of their own.
 * `fields` adds to every line what it returns (with tracing on: the active span's `trace_id` and `span_id`).
 */
export function createLogger(level: string, stream?: DestinationStream, fields?: () => object): Logger {
  const destination = stream ?? pino.destination({ dest: 1, sync: false, minLength: level === 'silent' ? 0 : 4096 });
  const options = { level, redact: { paths: REDACT, censor: '[redacted]' }, base: undefined };
  return pino(fields ? { ...options, mixin: fields } : options, destination);
}

/** Writes out buffered log lines (at shutdown). */
export function flushLogger(log: Logger): void {
  try {
    log.flush();
  } catch {
    // nothing buffered, or stdout already closed
  }
}

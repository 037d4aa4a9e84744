import { pino, type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';

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

/** `json` everywhere, `pretty` for a person at a terminal; `auto` (LOG_FORMAT's default) picks by stdout. */
export type LogFormat = 'auto' | 'json' | 'pretty';

/**
 * The process logger, secrets redacted. JSON lines, buffered (4 KiB) rather than written one syscall each, which cost
 * a share of a request's CPU (docs/decisions.md, "Performance"); `flushLogger` runs at shutdown. At a terminal (or
 * LOG_FORMAT=pretty): one readable line per entry, written as it happens. Tests pass a stream of their own.
 * `fields` adds to every line what it returns (with tracing on: the active span's `trace_id` and `span_id`).
 */
export function createLogger(
  level: string,
  stream?: DestinationStream,
  fields?: () => object,
  format: LogFormat = 'auto',
): Logger {
  const destination = stream ?? processDestination(level, format);
  const options = { level, redact: { paths: REDACT, censor: '[redacted]' }, base: undefined };
  return pino(fields ? { ...options, mixin: fields } : options, destination);
}

function processDestination(level: string, format: LogFormat): DestinationStream {
  const pretty = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  if (!pretty) return pino.destination({ dest: 1, sync: false, minLength: level === 'silent' ? 0 : 4096 });
  // redaction runs before the line reaches the formatter, so a pretty line hides what a JSON line hides
  return pinoPretty({
    sync: true,
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
    singleLine: true,
  });
}

/** Writes out buffered log lines (at shutdown). */
export function flushLogger(log: Logger): void {
  try {
    log.flush();
  } catch {
    // nothing buffered, or stdout already closed
  }
}

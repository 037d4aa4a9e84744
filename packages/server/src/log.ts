import { pino, type Logger } from 'pino';

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

/** The process logger: JSON lines on stdout, secrets redacted. */
export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: undefined });
}

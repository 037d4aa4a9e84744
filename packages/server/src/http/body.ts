import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.ts';
import { assertJsonShape } from './input-rules.ts';

export const MAX_BODY_BYTES = 1024 * 1024;
/** A body declared larger than this is never read: the answer closes the connection instead. */
export const DRAIN_LIMIT_BYTES = 8 * MAX_BODY_BYTES;

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** 413 PAYLOAD_TOO_LARGE, the answer to a body over MAX_BODY_BYTES. */
export function tooLarge(): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than 1 MiB.', { limitBytes: MAX_BODY_BYTES });
}

/**
 * Reads a JSON request body of at most 1 MiB. An empty body is `{}` (a POST with nothing to say, like a
 * revoke without a reason); a non-empty one must be a JSON object sent as application/json.
 */
export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  return (await readJsonBodyBytes(req)).value;
}

/** What readJsonBody reads, with the bytes it parsed (none for an empty body). */
export async function readJsonBodyBytes(
  req: IncomingMessage,
): Promise<{ value: Record<string, unknown>; raw: Buffer }> {
  const raw = await readBodyWithinLimit(req);
  if (raw === undefined) throw tooLarge();
  if (raw.length === 0) return { value: {}, raw };
  if (!JSON_TYPE.test(req.headers['content-type'] ?? '')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as JSON with Content-Type: application/json.', {
      contentType: req.headers['content-type'] ?? null,
    });
  }
  // nesting is capped before the parser and anything after it walks the value
  assertJsonShape(raw);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('INVALID_JSON', 'The request body is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new AppError('VALIDATION_FAILED', 'Invalid request: the body must be a JSON object.', {
      errors: [{ path: '', message: 'must be a JSON object' }],
    });
  }
  return { value: parsed as Record<string, unknown>, raw };
}

/**
 * The body, or undefined when it is over MAX_BODY_BYTES: declared so (never read past DRAIN_LIMIT_BYTES), or found
 * so while reading. An oversized body is still read to its end (and thrown away) up to a few MiB, so that the client
 * is reading when the 413 comes rather than writing into a reset.
 */
export function readBodyWithinLimit(req: IncomingMessage): Promise<Buffer | undefined> {
  if (Number(req.headers['content-length'] ?? 0) > DRAIN_LIMIT_BYTES) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else if (size > DRAIN_LIMIT_BYTES) resolve(undefined);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

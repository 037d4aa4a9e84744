import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../errors.ts';
import { DRAIN_LIMIT_BYTES } from '../../http/body.ts';

export interface AssetBody {
  /** The bytes, in a buffer of their own (so it can be moved to a worker thread). */
  bytes: Uint8Array;
  /** Their SHA-256, 0x-prefixed hex, computed as they arrived. */
  sha256: string;
}

/** 413 PAYLOAD_TOO_LARGE for an asset over the limit (C2PA_MAX_BYTES). */
export function assetTooLarge(limitBytes: number): AppError {
  return new AppError(
    'PAYLOAD_TOO_LARGE',
    `The asset is larger than the ${limitBytes} bytes this service signs (C2PA_MAX_BYTES).`,
    { limitBytes },
  );
}

/** The declared length, when there is one and it is a length. */
export function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  return header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined;
}

/**
 * Reads the request body as it streams in, hashing each chunk as it comes: into one buffer of the declared length
 * (no second copy), or, sent chunked, a list joined at the end. Over `limit`, reading stops keeping bytes; the rest is
 * drained (a few MiB at most, so the client is reading when the 413 comes) and the answer is 413.
 */
export function readAsset(req: IncomingMessage, limit: number): Promise<AssetBody> {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > limit) return Promise.reject(assetTooLarge(limit));
  const hash = createHash('sha256');
  const whole = declared === undefined ? undefined : new Uint8Array(declared);
  const chunks: Buffer[] = [];
  let size = 0;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      req.off('data', take);
      outcome();
    };
    const take = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        if (size > limit + DRAIN_LIMIT_BYTES) settle(() => reject(assetTooLarge(limit)));
        return;
      }
      hash.update(chunk);
      // the parser never passes more than Content-Length: the buffer always has room
      if (whole) whole.set(chunk, size - chunk.length);
      else chunks.push(chunk);
    };
    req.on('data', take);
    req.on('end', () =>
      settle(() =>
        size > limit
          ? reject(assetTooLarge(limit))
          : resolve({ bytes: whole ?? joined(chunks, size), sha256: `0x${hash.digest('hex')}` }),
      ),
    );
    // a client that goes away mid-body: its place is given back at once (the answer goes nowhere)
    const gone = () =>
      settle(() => reject(new AppError('MALFORMED_REQUEST', 'The body ended before it was complete.')));
    req.on('error', gone);
    req.on('close', gone);
  });
}

function joined(chunks: Buffer[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

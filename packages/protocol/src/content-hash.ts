import type { Hex } from './eip712.ts';

/**
 * A content hash as the service takes it, everywhere (the API, the SDK, the dashboard, the verification app): the
 * SHA-256 of the content as 64 hex digits, in any case, `0x` optional. It is stored, signed and shown in one form:
 * `0x` + 64 lower-case hex digits.
 */
export const CONTENT_HASH_PATTERN = /^(0x)?[0-9a-fA-F]{64}$/;

/** What a refused content hash is told (the API's validation message). */
export const CONTENT_HASH_RULE = 'must be a SHA-256 hash: 64 hex characters, optionally prefixed with 0x';

/** Whether text is a content hash as the service takes it (CONTENT_HASH_PATTERN). */
export function isContentHash(text: string): boolean {
  return typeof text === 'string' && CONTENT_HASH_PATTERN.test(text);
}

/** A content hash in its one written form (`0x` + 64 lower-case hex); a TypeError for text that is not one. */
export function normalizeContentHash(text: string): Hex {
  if (!isContentHash(text)) throw new TypeError(`the content hash ${CONTENT_HASH_RULE}`);
  return `0x${text.slice(text.length - 64).toLowerCase()}`;
}

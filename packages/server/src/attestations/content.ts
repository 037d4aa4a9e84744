import { createHash } from 'node:crypto';

/** SHA-256 of the UTF-8 bytes of the content, as 0x + 64 lower-case hex. */
export function hashContent(content: string): `0x${string}` {
  return `0x${createHash('sha256').update(content, 'utf8').digest('hex')}`;
}

/** Media types are case-insensitive; we store them lower-case with parameters spaced one way. */
export function normalizeContentType(contentType: string): string {
  return contentType
    .split(';')
    .map((part) => part.trim())
    .join('; ')
    .toLowerCase();
}

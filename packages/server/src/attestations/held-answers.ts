import { LRUCache } from 'lru-cache';
import { JsonText } from '../http/json-text.ts';

/**
 * An answer as it was written (UTF-8, outside V8's heap), and the version of what it was written from; one without a
 * version (a page of no records: as cheap to read again as to check) is sent, not held.
 */
interface WrittenAnswer {
  version: string | undefined;
  bytes: Buffer;
}

/** What an entry costs beyond its bytes, version and key (its objects, the cache's slots): counted in the bound. */
const ENTRY_OVERHEAD = 512;

/** How long an answer is held at most, however often it is asked for. */
const HELD_MS = 10 * 60_000;

/**
 * Public reads' answers as they were written, each with the version of the records it was written from
 * (version-store.ts), up to `maxBytes`, least recently asked for out first. A held answer is sent again only after
 * PostgreSQL said, in a statement that reads no record's bulk, that the version stands: never a stale answer,
 * whichever process changed the records, and no signed package read, decoded, rebuilt and collected again
 * (docs/decisions.md, "Performance"). The bytes live outside V8's heap: a full cache costs RSS, not collections.
 */
export function createHeldAnswers(maxBytes: number) {
  const held =
    maxBytes > 0
      ? new LRUCache<string, WrittenAnswer & { version: string }>({
          maxSize: maxBytes,
          sizeCalculation: (answer, key) => answer.bytes.length + answer.version.length + key.length + ENTRY_OVERHEAD,
          ttl: HELD_MS,
        })
      : undefined;
  return {
    /**
     * The held bytes for `key` when `versionNow` is their version, else what `write` writes (then held in their
     * place); undefined when there is nothing to answer (nothing is held for it then).
     */
    async answer(
      key: string,
      versionNow: () => Promise<string | undefined>,
      write: () => Promise<WrittenAnswer | undefined>,
    ): Promise<Buffer | undefined> {
      const before = held?.get(key);
      if (before && (await versionNow()) === before.version) return before.bytes;
      const written = await write();
      if (written?.version !== undefined) held?.set(key, { version: written.version, bytes: written.bytes });
      else held?.delete(key);
      return written?.bytes;
    },
  };
}

/**
 * An answer's text as bytes to hold, in memory of their own: `Buffer.from` cuts a short text's bytes from an 8 KB
 * slab it shares with other buffers, which one held answer would keep whole.
 */
export function heldBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

/** A held answer as a procedure returns it: the bytes for REST, their value for everything else. */
export const heldJson = <T>(bytes: Buffer): JsonText<T> =>
  new JsonText(
    () => bytes,
    () => JSON.parse(bytes.toString()) as T,
  );

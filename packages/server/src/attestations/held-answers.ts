import { LRUCache } from 'lru-cache';
import { JsonText } from '../http/json-text.ts';

/** An answer as it was written (UTF-8, outside V8's heap), and the version of what it was written from. */
export interface WrittenAnswer {
  version: string;
  bytes: Buffer;
}

/** How long an answer is held at most, however often it is asked for. */
const HELD_MS = 10 * 60_000;

/**
 * Public reads' answers as they were written, each with the version of the records it was written from
 * (record-version.ts), up to `maxBytes`, least recently asked for out first. A held answer is sent again only after
 * PostgreSQL said, in a statement that reads no record's bulk, that the version stands: never a stale answer,
 * whichever process changed the records, and no signed package read, decoded, rebuilt and collected again
 * (docs/decisions.md, "Performance"). The bytes live outside V8's heap: a full cache costs RSS, not collections.
 */
export function createHeldAnswers(maxBytes: number) {
  const held =
    maxBytes > 0
      ? new LRUCache<string, WrittenAnswer>({
          maxSize: maxBytes,
          sizeCalculation: (answer, key) => answer.bytes.length + answer.version.length + key.length,
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
      if (written) held?.set(key, written);
      else held?.delete(key);
      return written?.bytes;
    },
  };
}

/** A held answer as a procedure returns it: the bytes for REST, their value for everything else. */
export const heldJson = <T>(bytes: Buffer): JsonText<T> =>
  new JsonText(
    () => bytes,
    () => JSON.parse(bytes.toString()) as T,
  );

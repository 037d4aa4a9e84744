import { LRUCache } from 'lru-cache';
import { JsonText } from '../http/json-text.ts';
import { meter } from '../system/meter.ts';
import { AnswerSlabs, type PlacedAnswer } from './answer-slabs.ts';

/**
 * An answer as it was written, and the version of what it was written from; one without a version (a page of no
 * records: as cheap to read again as to check) is sent, not held.
 */
interface WrittenAnswer {
  version: string | undefined;
  text: string;
}

/** A held answer: its bytes (UTF-8, outside V8's heap, in answer-slabs.ts) and their version. */
interface HeldAnswer {
  version: string;
  placed: PlacedAnswer;
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
  const slabs = new AnswerSlabs();
  const sizeOf = (bytes: number, version: string, key: string) => bytes + version.length + key.length + ENTRY_OVERHEAD;
  const held =
    maxBytes > 0
      ? new LRUCache<string, HeldAnswer>({
          maxSize: maxBytes,
          sizeCalculation: (answer, key) => sizeOf(answer.placed.bytes.length, answer.version, key),
          ttl: HELD_MS,
          dispose: (answer) => slabs.release(answer.placed),
        })
      : undefined;
  /** The written answer held in place of what was, when it is held at all; what to send. */
  const keep = (key: string, written: WrittenAnswer | undefined): string | Buffer | undefined => {
    if (!held) return written?.text;
    if (written?.version === undefined) {
      held.delete(key);
      return written?.text;
    }
    // what the cache would refuse to hold (over its whole size) is sent, not placed
    const length = Buffer.byteLength(written.text);
    if (sizeOf(length, written.version, key) > maxBytes) {
      held.delete(key);
      return written.text;
    }
    const placed = slabs.place(written.text, length);
    held.set(key, { version: written.version, placed });
    return placed.bytes;
  };
  return {
    /**
     * The held bytes for `key` when `versionNow` is their version, else what `write` writes (then held in their
     * place); undefined when there is nothing to answer (nothing is held for it then).
     */
    async answer(
      key: string,
      versionNow: () => Promise<string | undefined>,
      write: () => Promise<WrittenAnswer | undefined>,
    ): Promise<string | Buffer | undefined> {
      const before = held?.get(key);
      if (before && (await versionNow()) === before.version) {
        meter().heldAnswer('hit');
        return before.placed.bytes;
      }
      const sent = keep(key, await write());
      meter().heldAnswer(before ? 'stale' : 'miss', held && { bytes: slabs.bytes, count: held.size });
      return sent;
    },
  };
}

/** An answer as a procedure returns it: the text or held bytes for REST, their value for everything else. */
export const heldJson = <T>(answer: string | Buffer): JsonText<T> =>
  new JsonText(
    () => answer,
    () => JSON.parse(typeof answer === 'string' ? answer : answer.toString()) as T,
  );

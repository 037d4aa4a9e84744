import { LRUCache } from 'lru-cache';
import { normalizeContentHash } from '@attestation-service/protocol';
import type { Db } from '../db/database.ts';
import { batched } from '../db/group-commit.ts';
import { idCursor, pageOf } from '../http/cursor.ts';
import { JsonText } from '../http/json-text.ts';
import type { Logger } from '../log.ts';
import { recordPageText, type RecordPage } from './record.ts';
import { pageVersionsByHashes, searchByHashes, type HashQuery } from './search-store.ts';

/** An answer as it was written, and the version of the page it was written from. */
interface WrittenPage {
  version: string;
  text: string;
}

/** How long an answer is held at most, however often it is asked for. */
const HELD_MS = 10 * 60_000;

/**
 * A content hash's page of records (the public search), read with the other searches of its turn (db/group-commit.ts).
 *
 * Answers are held as they were written, with their page's version (attestations/search-store.ts), up to
 * `cacheBytes`, least recently asked for out first. A held answer is sent again only after PostgreSQL said, in the
 * turn's statement of versions, that its page is as it was: never a stale page, whichever process changed it, and no
 * record's bulk read, decoded, rebuilt and collected again (docs/decisions.md, "Performance").
 */
export function createHashSearch(deps: {
  db: Db;
  verifyBaseUrl: string;
  batching: { maxBatch: number; maxInFlight: number; log?: Logger | undefined };
  /** 0: nothing held, each search reads its page. */
  cacheBytes: number;
}) {
  const { db, verifyBaseUrl } = deps;
  const readPages = batched((queries: HashQuery[]) => searchByHashes(db, queries), {
    ...deps.batching,
    name: 'searches by hash',
  });
  const readVersions = batched((queries: HashQuery[]) => pageVersionsByHashes(db, queries), {
    ...deps.batching,
    name: 'search versions',
  });
  const held =
    deps.cacheBytes > 0
      ? new LRUCache<string, WrittenPage>({
          maxSize: deps.cacheBytes,
          sizeCalculation: (page, key) => page.text.length + page.version.length + key.length,
          ttl: HELD_MS,
        })
      : undefined;

  const write = async (query: HashQuery, limit: number): Promise<WrittenPage> => {
    const { rows, version } = await readPages(query);
    const page = pageOf(rows, limit, (last) => idCursor.encode(last.id));
    return { version, text: recordPageText(page.rows, page.nextCursor, verifyBaseUrl) };
  };

  return async (hash: string, limit: number, beforeId: bigint | undefined): Promise<JsonText<RecordPage>> => {
    // one more than the page: whether a next one exists
    const query = { contentHash: normalizeContentHash(hash), limit: limit + 1, beforeId };
    const key = `${query.contentHash}/${limit}/${beforeId ?? ''}`;
    const before = held?.get(key);
    let text: string;
    if (before && (await readVersions(query)) === before.version) text = before.text;
    else {
      const page = await write(query, limit);
      held?.set(key, page);
      text = page.text;
    }
    return new JsonText(
      () => text,
      () => JSON.parse(text) as RecordPage,
    );
  };
}

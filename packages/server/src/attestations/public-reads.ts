import { normalizeContentHash } from '@attestation-service/protocol';
import type { Db } from '../db/database.ts';
import { batched } from '../db/group-commit.ts';
import { notFound } from '../errors.ts';
import { idCursor, pageOf } from '../http/cursor.ts';
import type { JsonText } from '../http/json-text.ts';
import type { Logger } from '../log.ts';
import type { AttestationRecord } from './contracts.ts';
import { createHeldAnswers, heldJson } from './held-answers.ts';
import { recordPageText, recordText, type RecordPage } from './record.ts';
import { findVersionedByUids, versionsOfUids } from './record-store.ts';
import { pageVersionsByHashes, searchByHashes, type HashQuery } from './search-store.ts';
import type { AttestationRow } from './store.ts';

/**
 * Four read queries of a kind under way at most; what arrives meanwhile rides the next one. Against two, reads by uid
 * answered 10–36 % more per second with a lower p99 in three alternating rounds, searches the same (docs/decisions.md).
 */
const BATCHING = { maxBatch: 200, maxInFlight: 4 };

/**
 * The public reads: a record by uid and a content hash's page. Each is read with the other reads of its kind in its
 * turn (db/group-commit.ts), and its answer held while its records' version stands (held-answers.ts).
 */
export function createPublicReads(deps: {
  db: Db;
  verifyBaseUrl: string;
  /** Where a failed batched read is reported. */
  log?: Logger | undefined;
  /** Bytes of answers held (ANSWER_CACHE_MB); 0: none, each read reads its records. */
  cacheBytes: number;
}) {
  const { db, verifyBaseUrl, log } = deps;
  const group = <In, Out>(name: string, run: (inputs: In[]) => Promise<Out[]>) =>
    batched(run, { ...BATCHING, name, log });
  const byUid = group('reads by uid', async (uids: string[]) => {
    const found = await findVersionedByUids(db, uids);
    return uids.map((uid) => found.get(uid));
  });
  const uidVersion = group('versions by uid', async (uids: string[]) => {
    const found = await versionsOfUids(db, uids);
    return uids.map((uid) => found.get(uid));
  });
  const byHash = group('searches by hash', (queries: HashQuery[]) => searchByHashes(db, queries));
  const hashVersion = group('versions by hash', (queries: HashQuery[]) => pageVersionsByHashes(db, queries));
  const answers = createHeldAnswers(deps.cacheBytes);

  return {
    /** A stored attestation by uid (pending on-chain ones have none yet). */
    row: async (uid: string): Promise<AttestationRow | undefined> => (await byUid(uid.toLowerCase()))?.row,

    async get(uid: string): Promise<JsonText<AttestationRecord>> {
      const id = uid.toLowerCase();
      const bytes = await answers.answer(
        `uid ${id}`,
        () => uidVersion(id),
        async () => {
          const found = await byUid(id);
          return found && { version: found.version, text: recordText(found.row, verifyBaseUrl) };
        },
      );
      if (bytes === undefined) throw notFound(`Attestation ${uid}`);
      return heldJson(bytes);
    },

    /** A content hash's page, newest first from `beforeId`. */
    async hashPage(hash: string, limit: number, beforeId: bigint | undefined): Promise<JsonText<RecordPage>> {
      // one more than the page: whether a next one exists
      const query = { contentHash: normalizeContentHash(hash), limit: limit + 1, beforeId };
      const bytes = await answers.answer(
        `hash ${query.contentHash}/${limit}/${beforeId ?? ''}`,
        () => hashVersion(query),
        async () => {
          const { rows, version } = await byHash(query);
          const page = pageOf(rows, limit, (last) => idCursor.encode(last.id));
          const text = recordPageText(page.rows, page.nextCursor, verifyBaseUrl);
          return { version: rows.length > 0 ? version : undefined, text };
        },
      );
      return heldJson(bytes!);
    },
  };
}

import { sql as raw, type ExpressionBuilder } from 'kysely';
import type { Db, DB } from '../db/database.ts';
import { precompiled } from '../db/precompiled.ts';
import { jsonRows, jsonText } from '../db/recordset.ts';
import { fromRaw, type RawRecord } from './record-raw.ts';
import { recordColumns } from './record-store.ts';
import { versionColumns, versionOf, xmin, type VersionParts } from './version-store.ts';
import type { AttestationRow } from './store.ts';

export interface HashQuery {
  contentHash: string;
  limit: number;
  beforeId?: bigint | undefined;
}

/** A content hash's page as stored now, and its version: what tells it apart from the page at any other moment. */
interface HashPage {
  rows: AttestationRow[];
  version: string;
}

type HashMember = { position: number; contentHash: string; lim: number; beforeId: string | null };

const newestFirst = (a: { id: string | bigint }, b: { id: string | bigint }) => {
  const [x, y] = [BigInt(a.id), BigInt(b.id)];
  return x < y ? 1 : x > y ? -1 : 0;
};

const memberRows = (members: HashMember[]) =>
  jsonRows(members, { position: 'int', contentHash: 'bpchar', lim: 'int', beforeId: 'int8' }, 'q');

/** A member's page under its hash, newest first from its `beforeId` (its select is the caller's). */
const pageOf = (eb: ExpressionBuilder<DB & { q: HashMember }, 'q'>) =>
  eb
    .selectFrom('attestations')
    .whereRef('attestations.contentHash', '=', 'q.contentHash')
    .where('attestations.id', '<', eb.fn.coalesce('q.beforeId', raw<string>`9223372036854775807`))
    .where('attestations.uid', 'is not', null)
    .orderBy('attestations.id', 'desc')
    .limit(eb.ref('q.lim'));

const recordPages = precompiled(
  (db: Db, members: HashMember[]) =>
    db
      .selectFrom(memberRows(members))
      .crossJoinLateral((eb) => pageOf(eb).select(recordColumns).select(xmin).as('a'))
      // no ORDER BY: sorting the group's rows (a kilobyte each) cost more than the lateral reads; pages sort below
      .select('q.position')
      .selectAll('a'),
  [[] as HashMember[]],
  (row: RawRecord & { position: number; xmin: string }) => ({ position: row.position, raw: row }),
  (members) => [jsonText(members)],
);

const pageVersions = precompiled(
  (db: Db, members: HashMember[]) =>
    db
      .selectFrom(memberRows(members))
      .crossJoinLateral((eb) => pageOf(eb).select(versionColumns).as('a'))
      .select('q.position')
      .selectAll('a'),
  [[] as HashMember[]],
  (row: VersionParts & { position: number }) => row,
  (members) => [jsonText(members)],
);

const membersOf = (queries: HashQuery[]): HashMember[] =>
  queries.map((q, position) => ({
    position,
    contentHash: q.contentHash,
    lim: q.limit,
    beforeId: q.beforeId === undefined ? null : q.beforeId.toString(),
  }));

/** Pages of several content-hash searches in one statement, each with its version (`pageVersionsByHashes`). */
export async function searchByHashes(db: Db, queries: HashQuery[]): Promise<HashPage[]> {
  const raws: Array<Array<RawRecord & { xmin: string }>> = queries.map(() => []);
  for (const { position, raw: row } of await recordPages(db, membersOf(queries))) raws[position]!.push(row);
  return raws.map((page) => {
    page.sort(newestFirst);
    return { rows: page.map(fromRaw), version: versionOf(page) };
  });
}

/**
 * The versions of the pages `searchByHashes` would read now, in one statement that reads no record's bulk (its signed
 * packages): a held page whose version is unchanged is still the page.
 */
export async function pageVersionsByHashes(db: Db, queries: HashQuery[]): Promise<string[]> {
  const parts: VersionParts[][] = queries.map(() => []);
  for (const row of await pageVersions(db, membersOf(queries))) parts[row.position]!.push(row);
  return parts.map((page) => versionOf(page.sort(newestFirst)));
}

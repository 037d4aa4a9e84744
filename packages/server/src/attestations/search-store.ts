import { sql as raw, type ExpressionBuilder } from 'kysely';
import type { AnchorColumns } from '../anchoring/record.ts';
import type { Db, DB } from '../db/database.ts';
import { precompiled } from '../db/precompiled.ts';
import { jsonRows, jsonText } from '../db/recordset.ts';
import { fromRaw, type RawRecord } from './record-raw.ts';
import { linkedColumns, recordColumns } from './record-store.ts';
import type { AttestationRow } from './store.ts';

export interface HashQuery {
  contentHash: string;
  limit: number;
  beforeId?: bigint | undefined;
}

/** A content hash's page as stored now, and its version: what tells it apart from the page at any other moment. */
export interface HashPage {
  rows: AttestationRow[];
  version: string;
}

type HashMember = { position: number; contentHash: string; lim: number; beforeId: string | null };

/** What a record's version is made of: its id, its own row's version and the parts it reads from other rows. */
interface VersionParts {
  id: string;
  xmin: string;
  onchain_uid: string | null;
  anchor: AnchorColumns['anchor'];
  claimant_name: string | null;
  claimant_domain: string | null;
}

/**
 * A page's version: each record's id, the `xmin` of its row (the transaction that wrote the row as it is: any update
 * writes a new one) and the values it reads from other rows, newest first. Two equal versions of a page are the same
 * records with the same fields; a new record under the hash, one gone, or any field changed makes them differ.
 */
function versionOf(parts: VersionParts[]): string {
  return JSON.stringify(parts.map((p) => [p.id, p.xmin, p.onchain_uid, p.anchor, p.claimant_name, p.claimant_domain]));
}

const newestFirst = (a: { id: string | bigint }, b: { id: string | bigint }) => {
  const [x, y] = [BigInt(a.id), BigInt(b.id)];
  return x < y ? 1 : x > y ? -1 : 0;
};

const xmin = raw<string>`attestations.xmin::text`.as('xmin');

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
      .crossJoinLateral((eb) =>
        pageOf(eb)
          .select((a) => ['attestations.id', xmin, ...linkedColumns(a)])
          .as('a'),
      )
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

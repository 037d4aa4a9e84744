import type { Db } from '../db/database.ts';
import { entryHash, GENESIS_HASH } from './chain.ts';
import { chainHeads, chainPage, toFields, type ChainHead } from './store.ts';

const PAGE_ROWS = 5000;

/** The first place an account's chain does not hold. */
export interface BrokenLink {
  /** The entry that fails (null when the entries are whole but the recorded head disagrees). */
  entryId: string | null;
  reason: string;
}

export interface ChainReport {
  account: string;
  accountId: string;
  entries: number;
  head: string;
  broken: BrokenLink | null;
}

/**
 * Walks one account's chain from genesis in chain order, recomputing every hash, and stops at the first broken
 * link: an entry whose contents no longer give its hash (edited), whose prevHash is not the hash of the entry
 * before it (one removed, inserted or reordered), or a recorded head (audit_chains) that the last entry does not
 * reach (entries removed from the end). Reads keyset pages, so memory stays flat whatever the length.
 */
async function verifyChain(db: Db, account: ChainHead): Promise<ChainReport> {
  const report = (entries: number, head: string, broken: BrokenLink | null): ChainReport => ({
    account: account.accountName,
    accountId: account.accountId,
    entries,
    head,
    broken,
  });
  let prev = GENESIS_HASH;
  let prevId: string | null = null;
  let count = 0;
  let after = '0';
  for (;;) {
    const rows = await chainPage(db, account.accountId, after, PAGE_ROWS);
    for (const row of rows) {
      if (row.prevHash !== prev) {
        const expected =
          prevId === null ? 'the genesis hash (it should be the first entry)' : `the hash of entry ${prevId}`;
        return report(count, prev, {
          entryId: row.id,
          reason: `prev_hash ${row.prevHash} is not ${expected}, ${prev}: an entry before it was removed, inserted or edited`,
        });
      }
      const computed = entryHash(row.prevHash, toFields(row));
      if (computed !== row.hash) {
        return report(count, prev, {
          entryId: row.id,
          reason: `its contents hash to ${computed}, not to its stored hash ${row.hash}: the entry was edited`,
        });
      }
      prev = row.hash;
      prevId = row.id;
      count++;
    }
    if (rows.length < PAGE_ROWS) break;
    after = rows.at(-1)!.id;
  }
  const recordedHead = account.headHash ?? GENESIS_HASH;
  if (recordedHead !== prev || account.length !== count) {
    return report(count, prev, {
      entryId: null,
      reason: `the recorded chain head is ${recordedHead} after ${account.length} entries, but the entries end at ${prev} after ${count}${prevId ? ` (entry ${prevId})` : ''}: entries were removed from the end, or the head was edited`,
    });
  }
  return report(count, prev, null);
}

/**
 * Which accounts a verification walks: every account, or the one with this name, by name (accounts/store.ts gives
 * them: audit/ reads no accounts table).
 */
export type AccountsByName = (db: Db, name?: string) => Promise<Array<{ id: string; name: string }>>;

/** Verifies every account's chain, or the named account's; throws when no account has that name. */
export async function verifyChains(
  db: Db,
  accountsByName: AccountsByName,
  accountName?: string,
): Promise<ChainReport[]> {
  const accounts = await chainHeads(db, await accountsByName(db, accountName));
  if (accountName !== undefined && accounts.length === 0) throw new Error(`no account named ${accountName}`);
  const reports: ChainReport[] = [];
  for (const account of accounts) reports.push(await verifyChain(db, account));
  return reports;
}

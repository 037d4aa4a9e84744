import type { Db } from '../db/database.ts';
import { meter } from '../system/meter.ts';
import { appendToChains, lockHeads, type ChainedEntry } from './append-store.ts';
import { entryHash, type AuditFields } from './chain.ts';

/** Appends one entry to its account's chain inside the caller's transaction. */
export function appendAudit(db: Db, fields: AuditFields): Promise<void> {
  return appendAuditEntries(db, [fields]);
}

/**
 * Appends entries, in order, to their accounts' chains inside the caller's transaction, in two statements. The
 * first upserts the chain heads (sorted, so two transactions never lock them in opposite orders) and holds their
 * row locks until commit: concurrent appends to one account queue there and its chain never forks. Call it last
 * in a transaction to hold those locks as briefly as possible.
 */
export async function appendAuditEntries(db: Db, entries: AuditFields[]): Promise<void> {
  if (entries.length === 0) return;
  meter().audited(entries); // the business events' counters: what is audited happened
  const accounts = [...new Set(entries.map((e) => e.accountId))].sort();
  const heads = await lockHeads(db, accounts);
  const head = new Map(heads.map((h) => [h.accountId, h.headHash]));
  const added = new Map<string, number>();
  const chained: ChainedEntry[] = [];
  for (const entry of entries) {
    const prevHash = head.get(entry.accountId)!;
    const hash = entryHash(prevHash, entry);
    chained.push({ ...entry, prevHash, hash });
    head.set(entry.accountId, hash);
    added.set(entry.accountId, (added.get(entry.accountId) ?? 0) + 1);
  }
  await appendToChains(
    db,
    chained,
    [...added].map(([accountId, count]) => ({ accountId, headHash: head.get(accountId)!, added: count })),
  );
}

import { auditEntry } from '../audit/entry.ts';
import { appendAuditEntries } from '../audit/append.ts';
import type { Db } from '../db/database.ts';
import { emitToSubscribers, subscribersOf, type OutboxEvent } from '../webhooks/outbox.ts';
import { markMined, uidsByAccount, type AnchorRow, type Timestamped } from './store.ts';

/**
 * The `attestation.anchored` event of one account: its uids in the anchor (another account's never), the root and
 * where the chain timestamped it. One event per anchor and account, not one per attestation.
 */
function anchoredEvent(accountId: string, anchor: AnchorRow, uids: string[], at: Timestamped): OutboxEvent {
  return {
    accountId,
    type: 'attestation.anchored',
    data: {
      root: anchor.root,
      txHash: at.txHash,
      blockNumber: Number(at.blockNumber),
      timestamp: at.timestamp.toISOString(),
      uids,
    },
  };
}

/**
 * In the caller's transaction: marks the anchor mined, and, unless it was already, writes each involved account's
 * `attestation.anchored` event (for its subscriptions) and one audit entry per account (the service acted: no key).
 * Returns whether it marked it.
 */
export async function confirmAnchor(db: Db, anchor: AnchorRow, at: Timestamped, now: Date): Promise<boolean> {
  if (!(await markMined(db, anchor.id, at))) return false;
  const accounts = await uidsByAccount(db, anchor.id);
  const subscriptions = await subscribersOf(
    db,
    accounts.map((a) => a.accountId),
    ['attestation.anchored'],
  );
  const subscribed = new Set(subscriptions.map((s) => s.accountId));
  await emitToSubscribers(
    db,
    accounts.filter((a) => subscribed.has(a.accountId)).map((a) => anchoredEvent(a.accountId, anchor, a.uids, at)),
    subscriptions,
    now,
  );
  await appendAuditEntries(
    db,
    accounts.map((a) =>
      auditEntry({
        accountId: a.accountId,
        at: now,
        action: 'attestation.anchored',
        resource: `anchor:${anchor.root}`,
        details: { root: anchor.root, txHash: at.txHash, blockNumber: Number(at.blockNumber), count: a.uids.length },
      }),
    ),
  );
  return true;
}

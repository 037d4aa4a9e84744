import type { Sql } from '../db/sql.ts';
import { emitToSubscribers, subscribersOf, type OutboxEvent } from '../webhooks/outbox.ts';
import { toRecord } from './record.ts';
import type { AttestationMode } from './states.ts';
import { findByUids } from './store.ts';

/**
 * `attestation.created` / `attestation.revoked` for these uids, with the public record as `data` (read in the same
 * transaction, so it is the record as committed). Reads nothing when no account involved has a subscription.
 */
export async function emitAttestationEvents(
  sql: Sql,
  type: 'attestation.created' | 'attestation.revoked',
  items: Array<{ accountId: string; uid: string }>,
  verifyBaseUrl: string,
  now: Date,
): Promise<number> {
  const subscriptions = await subscribersOf(
    sql,
    items.map((i) => i.accountId),
    [type],
  );
  const accounts = new Set(subscriptions.map((s) => s.accountId));
  const wanted = items.filter((i) => accounts.has(i.accountId));
  if (wanted.length === 0) return 0;
  const rows = await findByUids(
    sql,
    wanted.map((i) => i.uid.toLowerCase()),
  );
  const events: OutboxEvent[] = wanted.flatMap((i) => {
    const row = rows.get(i.uid.toLowerCase());
    return row ? [{ accountId: i.accountId, type, data: toRecord(row, verifyBaseUrl) }] : [];
  });
  return emitToSubscribers(sql, events, subscriptions, now);
}

/** `batch.completed`: the batch's counts, every uid in request order, and its transaction (null when all off-chain). */
export function batchCompletedEvent(
  accountId: string,
  batchId: string,
  items: Array<{ uid: string | null; txHash: string | null; mode: AttestationMode }>,
): OutboxEvent {
  const onchain = items.filter((i) => i.mode === 'onchain').length;
  return {
    accountId,
    type: 'batch.completed',
    data: {
      batchId,
      counts: { total: items.length, onchain, offchain: items.length - onchain },
      uids: items.map((i) => i.uid),
      txHash: items.find((i) => i.mode === 'onchain')?.txHash ?? null,
    },
  };
}

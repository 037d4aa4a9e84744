import type { Db } from '../db/database.ts';
import { emitToSubscribers, subscribersOf, type OutboxEvent } from '../webhooks/outbox.ts';
import { toRecord } from './record.ts';
import type { AttestationMode } from './states.ts';
import { findByUids } from './record-store.ts';

type RecordEventKind = 'attestation.created' | 'attestation.revoked' | 'attestation.replaced' | 'attestation.promoted';

/**
 * Events whose `data` is the public record of a uid (read in the same transaction, so it is the record as committed),
 * with `extra` fields beside it. Reads nothing when no account involved has a subscription.
 */
async function emitRecordEvents(
  db: Db,
  type: RecordEventKind,
  items: Array<{ accountId: string; uid: string; extra?: Record<string, unknown> }>,
  verifyBaseUrl: string,
  now: Date,
): Promise<number> {
  const subscriptions = await subscribersOf(
    db,
    items.map((i) => i.accountId),
    [type],
  );
  const accounts = new Set(subscriptions.map((s) => s.accountId));
  const wanted = items.filter((i) => accounts.has(i.accountId));
  if (wanted.length === 0) return 0;
  const rows = await findByUids(
    db,
    wanted.map((i) => i.uid.toLowerCase()),
  );
  const events: OutboxEvent[] = wanted.flatMap((i) => {
    const row = rows.get(i.uid.toLowerCase());
    return row ? [{ accountId: i.accountId, type, data: { ...toRecord(row, verifyBaseUrl), ...i.extra } }] : [];
  });
  return emitToSubscribers(db, events, subscriptions, now);
}

/** `attestation.created` / `.revoked` / `.promoted` for these uids, with the public record as `data`. */
export function emitAttestationEvents(
  db: Db,
  type: 'attestation.created' | 'attestation.revoked' | 'attestation.promoted',
  items: Array<{ accountId: string; uid: string }>,
  verifyBaseUrl: string,
  now: Date,
): Promise<number> {
  return emitRecordEvents(db, type, items, verifyBaseUrl, now);
}

/**
 * `attestation.replaced`: a reorg took an attestation's transaction off the chain and the relayer sent it again, so
 * it stands under a new uid now. `data` is the record under the new uid, plus `previousUid`, the one first reported.
 */
export function emitReplacedEvents(
  db: Db,
  items: Array<{ accountId: string; uid: string; previousUid: string }>,
  verifyBaseUrl: string,
  now: Date,
): Promise<number> {
  const withPrevious = items.map((i) => ({ ...i, extra: { previousUid: i.previousUid } }));
  return emitRecordEvents(db, 'attestation.replaced', withPrevious, verifyBaseUrl, now);
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

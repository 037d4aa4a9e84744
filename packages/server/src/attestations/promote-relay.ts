import { appendAuditEntries } from '../audit/append.ts';
import { auditEntry } from '../audit/entry.ts';
import type { Db } from '../db/database.ts';
import { emitAttestationEvents } from './events.ts';
import type { RelayItem } from './relay-store.ts';

type Mined = RelayItem & { uid: string };

/** Mined items that are promotions (they name an off-chain original), and the plain creates. */
export function splitPromotions<T extends Mined>(items: T[]): [promoted: T[], created: T[]] {
  return [items.filter((item) => item.offchainUid !== null), items.filter((item) => item.offchainUid === null)];
}

/**
 * In the relayer's confirming transaction, for promotions mined the first time: `attestation.promoted` (the on-chain
 * record, which names its original) and the audit entry, instead of a create's. The original names its on-chain uid
 * from now on by itself: it is read through the promotion's link.
 */
export async function recordPromotions(
  tx: Db,
  items: Mined[],
  ctx: { txHash: string; at: Date; verifyBaseUrl: string },
): Promise<void> {
  if (items.length === 0) return;
  await emitAttestationEvents(
    tx,
    'attestation.promoted',
    items.map((item) => ({ accountId: item.accountId, uid: item.uid })),
    ctx.verifyBaseUrl,
    ctx.at,
  );
  await appendAuditEntries(
    tx,
    items.map((item) =>
      auditEntry({
        accountId: item.accountId,
        actorKeyPrefix: item.keyPrefix,
        at: ctx.at,
        action: 'attestation.promoted',
        resource: `attestation:${item.uid}`,
        details: { mode: 'onchain', type: item.type, txHash: ctx.txHash, offchainUid: item.offchainUid },
      }),
    ),
  );
}

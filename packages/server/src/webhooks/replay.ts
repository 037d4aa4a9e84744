import { appendAudit } from '../audit/append.ts';
import { auditEntry, type MemberActor, type RequestOrigin } from '../audit/entry.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import type { DeliveryState } from './contracts.ts';
import { deliveryOwner, reviveDeadDelivery } from './delivery-store.ts';
import { enqueueDeliveries } from './outbox-store.ts';
import { isUuid } from './store.ts';

/** Why a delivery was not replayed: it is not dead, or its subscription was deleted. */
type ReplayOutcome =
  { replayed: true; state: 'pending' } | { replayed: false; state: DeliveryState | 'subscription deleted' };

/** Who replays: the operator's CLI, or a support member in the dashboard (only within `accountId`). */
type ReplayActor = 'cli' | { member: MemberActor; accountId: string; origin?: RequestOrigin };

/**
 * Support's replay of a dead delivery: a new round of up to five attempts with the same
 * X-Service-Delivery, so the receiver's idempotency still holds. Undefined when there is no such delivery (in the
 * actor's account). The update names the state it leaves (dead, of a live subscription), so two replays of one
 * delivery make one round.
 */
export async function replayDelivery(
  db: Db,
  clock: Clock,
  id: string,
  actor: ReplayActor,
): Promise<ReplayOutcome | undefined> {
  if (!isUuid(id)) return undefined;
  const at = new Date(clock.now());
  const dead: DeliveryState = 'dead';
  return inTransaction<ReplayOutcome | undefined>(db, async (tx) => {
    const revived = await reviveDeadDelivery(tx, id, at, actor === 'cli' ? undefined : actor.accountId);
    const row = await deliveryOwner(tx, id);
    if (!row || (actor !== 'cli' && row.accountId !== actor.accountId)) return undefined;
    if (!revived)
      return { replayed: false, state: row.deletedAt ? 'subscription deleted' : (row.state as DeliveryState) };
    await enqueueDeliveries(tx, [id]);
    await appendAudit(
      tx,
      auditEntry({
        accountId: row.accountId,
        at,
        action: 'webhook_delivery.replayed',
        resource: `webhook_delivery:${id}`,
        actorMember: actor === 'cli' ? null : actor.member,
        origin: actor === 'cli' ? null : (actor.origin ?? null),
        details: { subscriptionId: row.subscriptionId, previousState: dead, by: actor === 'cli' ? 'cli' : 'dashboard' },
      }),
    );
    return { replayed: true, state: 'pending' };
  });
}

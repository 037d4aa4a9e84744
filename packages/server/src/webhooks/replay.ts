import { appendAudit } from '../audit/append.ts';
import { auditEntry, type MemberActor, type RequestOrigin } from '../audit/entry.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/prisma.ts';
import { prismaSql } from '../db/sql.ts';
import type { DeliveryState } from './contracts.ts';
import { enqueueDeliveries } from './outbox.ts';
import { isUuid } from './store.ts';

/** Why a delivery was not replayed: it is not dead, or its subscription was deleted. */
export type ReplayOutcome =
  { replayed: true; state: 'pending' } | { replayed: false; state: DeliveryState | 'subscription deleted' };

/** Who replays: the operator's CLI, or a support member in the dashboard (only within `accountId`). */
export type ReplayActor = 'cli' | { member: MemberActor; accountId: string; origin?: RequestOrigin };

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
  const inAccount = actor === 'cli' ? {} : { accountId: actor.accountId };
  return db.$transaction(async (tx) => {
    const { count } = await tx.webhookDelivery.updateMany({
      where: { id, state: dead, subscription: { deletedAt: null, ...inAccount } },
      data: {
        state: 'pending' satisfies DeliveryState,
        attempts: 0,
        replays: { increment: 1 },
        nextAttemptAt: at,
        leaseUntil: null,
        completedAt: null,
      },
    });
    const row = await tx.webhookDelivery.findUnique({
      where: { id },
      select: { state: true, subscriptionId: true, subscription: { select: { accountId: true, deletedAt: true } } },
    });
    if (!row || (actor !== 'cli' && row.subscription.accountId !== actor.accountId)) return undefined;
    if (count === 0) {
      return {
        replayed: false,
        state: row.subscription.deletedAt ? 'subscription deleted' : (row.state as DeliveryState),
      };
    }
    const sql = prismaSql(tx);
    await enqueueDeliveries(sql, [id]);
    await appendAudit(
      sql,
      auditEntry({
        accountId: row.subscription.accountId,
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

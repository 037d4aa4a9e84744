import type { Selectable } from 'kysely';
import type { Db, DB } from '../db/database.ts';
import { jsonRows } from '../db/recordset.ts';
import type { DeliveryState } from './contracts.ts';

// Claims and attempts are the delivery pipeline's hot path: each is one statement for a whole group of deliveries.

/** A delivery whose lease this worker holds: what its attempt needs (its subscription's and event's columns too). */
export type Claimed = Pick<Selectable<DB['webhookDeliveries']>, 'id' | 'subscriptionId' | 'eventId' | 'attempts'> &
  Pick<Selectable<DB['webhookSubscriptions']>, 'accountId' | 'url' | 'secret' | 'previousSecret' | 'listenExpiresAt'> &
  Pick<Selectable<DB['webhookEvents']>, 'type' | 'body'>;

/** A claim's answer for one requested id: the claimed columns, or the delivery's state when it was not claimed. */
type ClaimRow = { [K in keyof Claimed]: Claimed[K] | null } & {
  requested: string;
  state: string | null;
  nextAttemptAt: Date | null;
  leased: boolean | null;
};

/**
 * Takes the leases of due, pending deliveries of live subscriptions in one statement: concurrent jobs for one
 * delivery (a retry racing the sweep, say) cannot both send it. One row per request: what its attempt needs when
 * it won the lease, and the delivery as it was before (none when there is no such delivery).
 */
export async function claimDeliveries(
  db: Db,
  requests: ReadonlyArray<{ id: string; now: Date; leaseUntil: Date }>,
): Promise<ClaimRow[]> {
  const wanted = jsonRows(
    requests.map(({ id, now, leaseUntil }) => ({ id, now, leaseUntil })),
    { id: 'uuid', now: 'timestamptz', leaseUntil: 'timestamptz' },
    'w',
  );
  return (
    db
      .with('wanted', (db) => db.selectFrom(wanted).selectAll())
      .with('won', (db) =>
        db
          .updateTable('webhookDeliveries as d')
          .from(['wanted as w', 'webhookSubscriptions as s', 'webhookEvents as e'])
          .set((eb) => ({ leaseUntil: eb.ref('w.leaseUntil') }))
          .whereRef('d.id', '=', 'w.id')
          .whereRef('s.id', '=', 'd.subscriptionId')
          .whereRef('e.id', '=', 'd.eventId')
          .where('s.deletedAt', 'is', null)
          .where('d.state', '=', 'pending' satisfies DeliveryState)
          .whereRef('d.nextAttemptAt', '<=', 'w.now')
          .where((eb) => eb.or([eb('d.leaseUntil', 'is', null), eb('d.leaseUntil', '<=', eb.ref('w.now'))]))
          .returning((eb) => [
            'd.id',
            's.accountId',
            'd.subscriptionId',
            'd.eventId',
            'd.attempts',
            's.url',
            's.secret',
            's.listenExpiresAt',
            'e.type',
            'e.body',
            // the previous secret signs too while its rotation's window lasts
            eb
              .case()
              .when('s.previousSecretExpiresAt', '>', eb.ref('w.now'))
              .then(eb.ref('s.previousSecret'))
              .end()
              .as('previousSecret'),
          ]),
      )
      .selectFrom('wanted as w')
      // the delivery as this statement found it: a CTE's update is not seen by the rest of the statement
      .leftJoin('webhookDeliveries as c', 'c.id', 'w.id')
      .leftJoin('won', 'won.id', 'w.id')
      .select((eb) => [
        'w.id as requested',
        'c.state',
        'c.nextAttemptAt',
        eb('c.leaseUntil', '>', eb.ref('w.now')).$castTo<boolean | null>().as('leased'),
        'won.id',
        'won.accountId',
        'won.subscriptionId',
        'won.eventId',
        'won.attempts',
        'won.url',
        'won.secret',
        'won.previousSecret',
        'won.listenExpiresAt',
        'won.type',
        'won.body',
      ])
      .execute()
  );
}

/** One attempt as recorded: the attempt row's columns, and the delivery's state after it. */
type AttemptRow = {
  id: string;
  made: number;
  at: Date;
  status: number | null;
  error: string | null;
  durationMs: number;
  responseBody: string | null;
  state: Exclude<DeliveryState, 'dropped'>;
  nextAttemptAt: Date | null;
};

/**
 * Stores each attempt and its delivery's new state in one statement. A delivery no longer pending (dropped
 * meanwhile: its subscription deleted) keeps its state, its completion time, and no next attempt. Returns each
 * delivery's state after.
 */
export function recordAttempts(db: Db, attempts: AttemptRow[]): Promise<Array<{ id: string; state: string }>> {
  const input = jsonRows(
    attempts,
    {
      id: 'uuid',
      made: 'int',
      at: 'timestamptz',
      status: 'int',
      error: 'text',
      durationMs: 'int',
      responseBody: 'text',
      state: 'text',
      nextAttemptAt: 'timestamptz',
    },
    'i',
  );
  const pending = 'pending' satisfies DeliveryState;
  return db
    .with('input', (db) => db.selectFrom(input).selectAll())
    .with('attempt', (db) =>
      db
        .insertInto('webhookAttempts')
        .columns(['deliveryId', 'number', 'at', 'status', 'error', 'durationMs', 'responseBody'])
        .expression((eb) =>
          eb.selectFrom('input').select(['id', 'made', 'at', 'status', 'error', 'durationMs', 'responseBody']),
        ),
    )
    .updateTable('webhookDeliveries as d')
    .from('input as i')
    .set((eb) => {
      const wasPending = eb('d.state', '=', pending);
      return {
        attempts: eb.ref('i.made'),
        leaseUntil: null,
        lastStatus: eb.ref('i.status'),
        lastError: eb.ref('i.error'),
        state: eb.case().when(wasPending).then(eb.ref('i.state')).else(eb.ref('d.state')).end(),
        nextAttemptAt: eb.case().when(wasPending).then(eb.ref('i.nextAttemptAt')).end(),
        completedAt: eb
          .case()
          .when(eb.and([wasPending, eb('i.state', '<>', pending)]))
          .then(eb.ref('i.at'))
          .else(eb.ref('d.completedAt'))
          .end(),
      };
    })
    .whereRef('d.id', '=', 'i.id')
    .returning(['d.id', 'd.state'])
    .execute();
}

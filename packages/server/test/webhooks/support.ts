import type { Db } from '../support/db.ts';
import { waitFor } from '../support/wait.ts';

export interface DeliveryRow {
  id: string;
  state: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
}

/** Waits until the subscription's deliveries, released by their worker, are as `until` says; oldest first. */
export async function settledDeliveries(
  db: Db,
  subscriptionId: string,
  until: (rows: DeliveryRow[]) => boolean,
  timeout: number,
): Promise<DeliveryRow[]> {
  let last: DeliveryRow[] = [];
  const read = async () => {
    last = await db
      .selectFrom('webhookDeliveries')
      .select(['id', 'state', 'attempts', 'lastStatus', 'lastError'])
      .where('subscriptionId', '=', subscriptionId)
      .where('leaseUntil', 'is', null)
      .orderBy('createdAt')
      .execute();
    return until(last) && last;
  };
  return waitFor(read, { timeout }).catch((error: unknown) => {
    throw new Error(`deliveries not as expected: ${JSON.stringify(last)}`, { cause: error });
  });
}

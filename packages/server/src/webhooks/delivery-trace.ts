import type { Db } from '../db/database.ts';
import { tracer } from '../tracing/tracing.ts';
import { traceparentOfDelivery } from './delivery-store.ts';

/**
 * With tracing on, the trace a delivery's attempt joins (docs/operations.md, "Tracing"): the request that made its
 * attestation, when the event is about one; else the work that queued it (the delivery row's traceparent). Reads
 * nothing with tracing off.
 */
export async function deliveryTraceparent(db: Db, deliveryId: string): Promise<string | undefined> {
  if (!tracer().on) return undefined;
  // an attempt is made whether or not its trace could be read
  return traceparentOfDelivery(db, deliveryId).catch(() => undefined);
}

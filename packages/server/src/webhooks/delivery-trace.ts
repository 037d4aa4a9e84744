import type { Sql } from '../db/sql.ts';
import { tracer } from '../tracing/tracing.ts';

/**
 * With tracing on, the trace a delivery's attempt joins (docs/operations.md, "Tracing"): the request that made its
 * attestation, when the event is about one; else the work that queued it (the delivery row's traceparent). Reads
 * nothing with tracing off.
 */
export async function deliveryTraceparent(sql: Sql, deliveryId: string): Promise<string | undefined> {
  if (!tracer().on) return undefined;
  const [row] = await sql
    .query<{ traceparent: string | null }>(
      `SELECT coalesce(
         (SELECT a.traceparent FROM attestations a WHERE a.uid = lower(e.body::jsonb -> 'data' ->> 'uid')),
         d.traceparent) AS traceparent
       FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.id = $1::uuid`,
      [deliveryId],
    )
    .catch(() => []);
  return row?.traceparent ?? undefined;
}

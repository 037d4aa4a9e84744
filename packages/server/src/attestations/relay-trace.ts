import type { Db } from '../db/database.ts';
import { tracer } from '../tracing/tracing.ts';
import { journalTimes, tracedItems } from './relay-trace-store.ts';

interface RelayedTransaction {
  journalId: string;
  txHash: string;
  blockNumber: bigint;
  gasUsed: bigint;
  /** The attestations it carried (their rows hold the traceparent of the request that made each). */
  ids: string[];
}

/**
 * With tracing on, what a mined transaction did, as spans (docs/operations.md, "Tracing"): each item a span in its own
 * request's trace, from its request to its block, with the transaction's hash and block; and the transaction a span
 * of its own, from its first send to its receipt, linked to those items. Reads the rows' traceparents and the
 * journal's send time; a failure costs the spans, never the relay.
 */
export async function traceRelayed(db: Db, tx: RelayedTransaction): Promise<void> {
  const tracing = tracer();
  if (!tracing.on || tx.ids.length === 0) return;
  try {
    const rows = await tracedItems(db, tx.ids);
    const journal = await journalTimes(db, tx.journalId);
    const end = new Date();
    const attributes = { 'tx.hash': tx.txHash, 'tx.block_number': Number(tx.blockNumber) };
    const items = rows.map((row) =>
      tracing.record('relay item', {
        parent: row.traceparent,
        start: row.createdAt,
        end,
        attributes: { ...attributes, 'attestation.uid': row.uid ?? undefined },
      }),
    );
    tracing.record('relay transaction', {
      root: true,
      start: journal?.createdAt ?? end,
      end,
      links: items,
      attributes: {
        ...attributes,
        'tx.gas_used': Number(tx.gasUsed),
        'relay.items': tx.ids.length,
        'relay.journal_id': tx.journalId,
        'relay.sent_at': journal?.sentAt?.toISOString(),
      },
    });
  } catch {
    // the spans are lost; the relay is not
  }
}

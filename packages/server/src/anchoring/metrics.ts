import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { oldestUnanchored } from './store.ts';
import { PREFIX, scrapedGauge, type ReadingFailed, type Registry } from '../system/metrics.ts';

/**
 * When anchoring is on: `anchor_lag_seconds`, how long the oldest off-chain attestation not on chain yet has waited
 * (the oldest in no anchor, or the oldest anchor not mined: its attestations are older still), read at scrape time
 * from two partial indexes; and `anchor_interval_seconds` for the alert.
 */
export function anchorMetrics(
  registry: Registry,
  deps: { db: Db; clock: Clock; intervalMs: number },
  failed: ReadingFailed,
): void {
  if (deps.intervalMs <= 0) return;
  scrapedGauge(
    registry,
    { name: `${PREFIX}anchor_interval_seconds`, help: 'ANCHOR_INTERVAL: how often the worker anchors, in seconds.' },
    async () => deps.intervalMs / 1000,
    failed,
  );
  scrapedGauge(
    registry,
    {
      name: `${PREFIX}anchor_lag_seconds`,
      help: 'Age of the oldest off-chain attestation whose root is not mined yet, in seconds (0: none waits).',
    },
    async () => {
      const oldest = await oldestUnanchored(deps.db);
      return oldest ? Math.max(0, (deps.clock.now() - oldest.getTime()) / 1000) : 0;
    },
    failed,
  );
}

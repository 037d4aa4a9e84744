import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { PREFIX, scrapedGauge, sharedReading, type ReadingFailed, type Registry } from '../system/metrics.ts';
import { relayBacklog } from './pending-store.ts';

/**
 * The relayer's backlog, read from the attestations table at scrape time (whatever the relayer does, these are the
 * items still waiting for a mined transaction): `relay_pending_items{kind}` and `relay_oldest_pending_age_seconds`.
 */
export function relayBacklogMetrics(registry: Registry, db: Db, clock: Clock, failed: ReadingFailed): void {
  const read = sharedReading(() => relayBacklog(db));
  scrapedGauge(
    registry,
    {
      name: `${PREFIX}relay_pending_items`,
      help: 'Items waiting for a mined transaction, queued or in one sent: attest (on-chain creates) or revoke.',
      labelNames: ['kind'] as const,
    },
    async () => {
      const { attest, revoke } = await read();
      return [
        { labels: { kind: 'attest' }, value: attest },
        { labels: { kind: 'revoke' }, value: revoke },
      ];
    },
    failed,
  );
  scrapedGauge(
    registry,
    {
      name: `${PREFIX}relay_oldest_pending_age_seconds`,
      help: 'Age of the oldest on-chain create still pending (0 when none is): how far the relayer is behind.',
    },
    async () => {
      const { oldest } = await read();
      return oldest === null ? 0 : Math.max(0, (clock.now() - oldest.getTime()) / 1000);
    },
    failed,
  );
}

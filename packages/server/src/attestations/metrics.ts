import type { Clock } from '../clock.ts';
import type { Sql } from '../db/sql.ts';
import { PREFIX, scrapedGauge, sharedReading, type ReadingFailed, type Registry } from '../system/metrics.ts';

interface Backlog {
  attest: number;
  revoke: number;
  oldest: Date | null;
}

/**
 * The relayer's backlog, read from the attestations table at scrape time (whatever the relayer does, these are the
 * items still waiting for a mined transaction): `relay_pending_items{kind}` and `relay_oldest_pending_age_seconds`.
 * Each reading is index scans: (status, id) and (revoke_state).
 */
export function relayBacklogMetrics(registry: Registry, sql: Sql, clock: Clock, failed: ReadingFailed): void {
  const read = sharedReading(async () => {
    const [row] = await sql.query<Backlog>(
      `SELECT (SELECT count(*) FROM attestations WHERE status = 'pending')::int AS attest,
         (SELECT count(*) FROM attestations WHERE revoke_state = 'pending')::int AS revoke,
         (SELECT created_at FROM attestations WHERE status = 'pending' ORDER BY id LIMIT 1) AS oldest`,
    );
    return row!;
  });
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

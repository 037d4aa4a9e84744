import pg from 'pg';
import { fail, ok, PROBE_TIMEOUT_MS, warn, type Finding } from '../system/doctor.ts';
import { databaseLocation } from '../system/service-state.ts';
import { readMigrations } from './migrate.ts';
import { connectionFailure } from './unreachable.ts';

/**
 * Whether the database connects and has every migration of this version applied; `setting` names where it is. A
 * server that does not vacuum and analyze its tables by itself is a warning beside it.
 */
export async function checkDatabase(databaseUrl: string, setting: string): Promise<Finding[]> {
  const where = databaseLocation(databaseUrl);
  const client = new pg.Client({
    connectionString: databaseUrl,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    query_timeout: PROBE_TIMEOUT_MS,
  });
  client.on('error', () => undefined); // a connection lost after the probe is no finding
  try {
    try {
      await client.connect();
    } catch (error) {
      const reason = connectionFailure(error) ?? String((error as Error).message).split('\n')[0];
      return [fail('database', `cannot connect to ${where}: ${reason}`, setting)];
    }
    const applied = await client
      .query<{ name: string }>(
        `SELECT migration_name AS name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      )
      .then(
        ({ rows }) => new Set(rows.map((row) => row.name)),
        (error: { code?: string }) => {
          if (error.code === '42P01') return new Set<string>(); // no bookkeeping table: never migrated
          throw error;
        },
      );
    const migrations = await readMigrations();
    const pending = migrations.filter((m) => !applied.has(m.name));
    // a warning that cannot be worked out is no finding: it must never turn a database that answers into a failure
    const vacuuming = await autovacuumFinding(client).catch(() => []);
    const found =
      pending.length > 0
        ? fail(
            'database',
            `${where} connects, but ${pending.length} of ${migrations.length} migrations are not applied ` +
              '(`attestation-service migrate` applies them; so does `serve`)',
          )
        : ok('database', `${where} connects; all ${migrations.length} migrations applied`);
    return [found, ...vacuuming];
  } catch (error) {
    return [fail('database', `${where}: ${String((error as Error).message).split('\n')[0]}`, setting)];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A warning when the server's autovacuum is off (or cannot run: it needs `track_counts`). Without it nothing
 * analyzes the tables as they grow, and plans made from stale statistics slowed a soak's API to a fraction of its
 * rate (docs/operations.md, "PostgreSQL").
 */
async function autovacuumFinding(client: pg.Client): Promise<Finding[]> {
  const { rows } = await client.query<{ autovacuum: string; track_counts: string }>(
    `SELECT current_setting('autovacuum') AS autovacuum, current_setting('track_counts') AS track_counts`,
  );
  const off = [rows[0]?.autovacuum, rows[0]?.track_counts].includes('off');
  if (!off) return [];
  return [
    warn(
      'database',
      'autovacuum is off on this server: tables are never analyzed as they grow, and queries slow down ' +
        '(turn autovacuum and track_counts on, or run VACUUM ANALYZE on a schedule)',
      'postgresql.conf',
    ),
  ];
}

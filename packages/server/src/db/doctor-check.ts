import pg from 'pg';
import { fail, ok, PROBE_TIMEOUT_MS, type Finding } from '../system/doctor.ts';
import { databaseLocation } from '../system/service-state.ts';
import { readMigrations } from './migrate.ts';
import { connectionFailure } from './unreachable.ts';

/** Whether the database connects and has every migration of this version applied; `setting` names where it is. */
export async function checkDatabase(databaseUrl: string, setting: string): Promise<Finding> {
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
      return fail('database', `cannot connect to ${where}: ${reason}`, setting);
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
    if (pending.length > 0)
      return fail(
        'database',
        `${where} connects, but ${pending.length} of ${migrations.length} migrations are not applied ` +
          '(`attestation-service migrate` applies them; so does `serve`)',
      );
    return ok('database', `${where} connects; all ${migrations.length} migrations applied`);
  } catch (error) {
    return fail('database', `${where}: ${String((error as Error).message).split('\n')[0]}`, setting);
  } finally {
    await client.end().catch(() => undefined);
  }
}

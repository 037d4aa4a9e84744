import { sql, type PostgresPoolClient } from 'kysely';
import { createDatabase, type Db } from './database.ts';
import type { Pool } from './sql.ts';

/**
 * A pooled connection held as one session: its session-level advisory locks live and die with it (PostgreSQL drops
 * them the moment the connection ends), which is how one relayer and one anchor run at a time hold across processes.
 */
interface Session {
  /** Every statement on this one connection. */
  db: Db;
  /** Aborted when the connection ends or fails (PostgreSQL restarted, the session killed): its locks are gone. */
  lost: AbortSignal;
  /** Gives the connection back to the pool; a lost one, or one `broken` names, is closed instead. */
  release(broken?: Error): void;
}

/** Takes a connection of the pool as a session of its own (the pool may be busy: its locks are this one's). */
export async function openSession(pool: Pool): Promise<Session> {
  const client = await pool.connect();
  const lost = new AbortController();
  const onLost = () => lost.abort();
  client.on('error', onLost);
  client.on('end', onLost);
  // every statement of `db` runs on this client, which is released once, by the session
  const held = {
    query: (...args: unknown[]) => (client.query as (...a: unknown[]) => unknown)(...args),
    release: () => undefined,
  } as unknown as PostgresPoolClient;
  const db = createDatabase({ connect: async () => held, end: async () => undefined, options: {} });
  return {
    db,
    lost: lost.signal,
    release(broken) {
      client.off('error', onLost);
      client.off('end', onLost);
      client.release(broken ?? (lost.signal.aborted || undefined));
    },
  };
}

/** Takes the session-level advisory lock `key` unless another session holds it; says whether it did. */
export async function tryAdvisoryLock(db: Db, key: number): Promise<boolean> {
  const { rows } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_lock(${key}) AS ok`.execute(db);
  return rows[0]!.ok;
}

export async function advisoryUnlock(db: Db, key: number): Promise<void> {
  await sql`SELECT pg_advisory_unlock(${key})`.execute(db);
}

export async function advisoryUnlockAll(db: Db): Promise<void> {
  await sql`SELECT pg_advisory_unlock_all()`.execute(db);
}

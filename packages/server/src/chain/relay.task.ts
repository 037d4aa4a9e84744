import type { Task } from 'graphile-worker';
import { pgSql, type Pool, type Sql } from '../db/sql.ts';
import type { Relayer } from './relayer.ts';

export const RELAY_TASK = 'relay';
/** The PostgreSQL advisory lock that makes one relayer at a time sign, across every worker and replica. */
const SIGNER_LOCK = 0x7e1a7e5;

/**
 * Asks for a relay run, in the caller's transaction. While one is queued, asking again adds nothing; while one
 * runs, graphile-worker adds one more. `delaySeconds` defers it (a run that found the signer busy comes back).
 */
export async function enqueueRelay(sql: Sql, delaySeconds = 0): Promise<void> {
  await sql.query(
    `SELECT graphile_worker.add_job($1, '{}'::json, run_at => now() + make_interval(secs => $2), job_key => $1, max_attempts => 100)`,
    [RELAY_TASK, delaySeconds],
  );
}

/** How soon a relay job that found the signer busy comes back, to take what arrived while it was busy. */
const BUSY_RETRY_SECONDS = 1;

/**
 * The relay job: reconcile the journal, then send until nothing is pending or in flight (a graceful shutdown's abort
 * ends it sooner: the journal keeps what is in flight for the next run). It holds a session-level advisory lock
 * while it works, so nonces never race; PostgreSQL drops that lock the moment a crashed holder's connection dies,
 * so the next job (added at every boot) can reconcile at once. See docs/decisions.md (one signer). A job that finds
 * the lock taken does not wait for it (waiting jobs each held a pooled connection, and with many concurrent jobs
 * they once took every connection the holder needed): it asks for another run shortly and ends.
 */
export function relayTask(relayer: Relayer, pool: Pool): Task {
  return async (_payload, helpers) => {
    const session = await pool.connect();
    let locked = false;
    try {
      locked = (await session.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [SIGNER_LOCK]))
        .rows[0]!.locked;
      if (!locked) return await enqueueRelay(pgSql(session), BUSY_RETRY_SECONDS); // on this connection: the pool may be busy
      await relayer.run(helpers.abortSignal);
    } finally {
      if (locked) await session.query('SELECT pg_advisory_unlock($1)', [SIGNER_LOCK]).catch(() => undefined);
      session.release();
    }
  };
}

import type { Task } from 'graphile-worker';
import type { Pool, Sql } from '../db/sql.ts';
import type { Relayer } from './relayer.ts';

export const RELAY_TASK = 'relay';
/** The PostgreSQL advisory lock that makes one relayer at a time sign, across every worker and replica. */
const SIGNER_LOCK = 0x7e1a7e5;

/** Asks for a relay run, in the caller's transaction. While one is queued, asking again adds nothing. */
export async function enqueueRelay(sql: Sql): Promise<void> {
  await sql.query(`SELECT graphile_worker.add_job($1, '{}'::json, job_key => $1, max_attempts => 100)`, [RELAY_TASK]);
}

/**
 * The relay job: reconcile the journal, then send until nothing is pending. It holds a session-level advisory lock
 * while it works, so nonces never race; PostgreSQL drops that lock the moment a crashed holder's connection dies,
 * so the next job (added at every boot) can reconcile at once. See docs/decisions.md (one signer).
 */
export function relayTask(relayer: Relayer, pool: Pool): Task {
  return async () => {
    const session = await pool.connect();
    try {
      await session.query('SELECT pg_advisory_lock($1)', [SIGNER_LOCK]);
      await relayer.reconcile();
      while ((await relayer.relayNext()) > 0) {
        // each round sends one transaction with everything that arrived meanwhile
      }
    } finally {
      await session.query('SELECT pg_advisory_unlock($1)', [SIGNER_LOCK]).catch(() => undefined);
      session.release();
    }
  };
}

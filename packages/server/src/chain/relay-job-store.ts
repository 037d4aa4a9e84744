import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

export const RELAY_TASK = 'relay';
/** The PostgreSQL advisory lock that makes one relayer at a time sign, across every worker and replica. */
export const SIGNER_LOCK = 0x7e1a7e5;
/** Held shared by each transaction that adds relay work, and exclusive by a relayer deciding to stop. */
export const GATE_LOCK = 0x7e1a7e6;

/** Adds a relay job, whatever is running (one per job key: asking again while one is queued moves its time). */
export async function addRelayJob(db: Db, delaySeconds: number): Promise<void> {
  await sql`SELECT graphile_worker.add_job(${RELAY_TASK}, '{}'::json, run_at => now() + make_interval(secs => ${delaySeconds}),
    job_key => ${RELAY_TASK}, max_attempts => 100)`.execute(db);
}

/**
 * Asks for a relay run in the caller's transaction, unless a relayer is running: that one takes the new work, and
 * never stops without seeing it (see relayTask). Touching the job row at every create would make concurrent
 * creates wait on each other's commits, and keep the job from being picked up while they last.
 */
export async function enqueueRelay(db: Db): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock_shared(${GATE_LOCK})`.execute(db);
  await sql`SELECT graphile_worker.add_job(${RELAY_TASK}, json_strip_nulls(json_build_object('traceparent',
      nullif(current_setting('app.traceparent', true), ''))), job_key => ${RELAY_TASK}, max_attempts => 100)
    WHERE NOT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = 0
      AND objid = ${SIGNER_LOCK} AND objsubid = 1
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))`.execute(db);
}

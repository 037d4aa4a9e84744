import { setTimeout as sleep } from 'node:timers/promises';
import type { Task } from 'graphile-worker';
import { pgSql, type Pool, type Sql } from '../db/sql.ts';
import { REORG_RECHECK_SECONDS } from './reorg.ts';
import type { Relayer } from './relayer.ts';
import { tracer, traceparentIn } from '../tracing/tracing.ts';

export const RELAY_TASK = 'relay';
/** The PostgreSQL advisory lock that makes one relayer at a time sign, across every worker and replica. */
const SIGNER_LOCK = 0x7e1a7e5;
/** Held shared by each transaction that adds relay work, and exclusive by a relayer deciding to stop. */
const GATE_LOCK = 0x7e1a7e6;
/** How often a relayer's run is looked after by a later job, in case its process dies without coming back. */
const WATCH_SECONDS = 10;

/** Adds a relay job, whatever is running (one per job key: asking again while one is queued moves its time). */
async function addRelayJob(sql: Sql, delaySeconds: number): Promise<void> {
  await sql.query(
    `SELECT graphile_worker.add_job($1, '{}'::json, run_at => now() + make_interval(secs => $2), job_key => $1, max_attempts => 100)`,
    [RELAY_TASK, delaySeconds],
  );
}

/**
 * Asks for a relay run in the caller's transaction, unless a relayer is running: that one takes the new work, and
 * never stops without seeing it (see relayTask). Touching the job row at every create would make concurrent
 * creates wait on each other's commits, and keep the job from being picked up while they last.
 */
export async function enqueueRelay(sql: Sql): Promise<void> {
  await sql.query('SELECT pg_advisory_xact_lock_shared($1)', [GATE_LOCK]);
  await sql.query(
    `SELECT graphile_worker.add_job($1, json_strip_nulls(json_build_object('traceparent',
         nullif(current_setting('app.traceparent', true), ''))), job_key => $1, max_attempts => 100)
     WHERE NOT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = 0 AND objid = $2
       AND objsubid = 1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))`,
    [RELAY_TASK, SIGNER_LOCK],
  );
}

/**
 * The relay job: reconcile the journal, then send until nothing is pending or in flight (a graceful shutdown's abort
 * ends it sooner: the journal keeps what is in flight, and a job is left for the next run). It holds a session-level
 * advisory lock while it works, so nonces never race; PostgreSQL drops that lock the moment a crashed holder's
 * connection dies, and a job queued every WATCH_SECONDS while it works (or the next boot's) reconciles at once. See
 * docs/decisions.md (one signer). While it holds the lock, requests add no job (enqueueRelay); it stops only once,
 * holding the gate that those requests hold while they commit, it sees no work left. A job that finds the lock taken
 * does not wait for it (waiting jobs each held a pooled connection): it ends, leaving the watch for later.
 */
export function relayTask(relayer: Relayer, pool: Pool): Task {
  // a run is a trace of its own, linked to the request that queued it (docs/operations.md, "Tracing")
  const traced: Task = (payload, helpers) =>
    tracer().span('relay job', async () => run(payload, helpers), { root: true, links: [traceparentIn(payload)] });
  const run: Task = async (_payload, helpers) => {
    const session = await pool.connect();
    const sql = pgSql(session); // the locks are this connection's: the pool may be busy
    // the signer's lock lives and dies with this connection (PostgreSQL restarted, the session killed): then another
    // relayer may take the lock, so this one stops at once and leaves what is in flight to the journal
    const lockLost = new AbortController();
    const onLost = () => lockLost.abort();
    session.on('error', onLost);
    session.on('end', onLost);
    const signal = AbortSignal.any([helpers.abortSignal, lockLost.signal]);
    const tryLock = async (key: number) =>
      (await session.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [key])).rows[0]!.ok;
    let locked = false;
    try {
      locked = await tryLock(SIGNER_LOCK);
      if (!locked || (await relayer.hasWork())) await addRelayJob(sql, WATCH_SECONDS);
      if (!locked) return;
      for (;;) {
        await relayer.run(signal);
        if (lockLost.signal.aborted) return; // the relayer that takes the lock reconciles the journal
        if (helpers.abortSignal.aborted) return await addRelayJob(sql, 0);
        if (!(await tryLock(GATE_LOCK))) {
          await sleep(50); // a request is adding work right now
          continue;
        }
        const more = await relayer.hasWork().catch(() => true);
        if (!more) {
          await session.query('SELECT pg_advisory_unlock_all()');
          locked = false;
          // what it reported mined is looked at again until it is deep enough that no reorg takes it away
          if (await relayer.watching().catch(() => false)) await addRelayJob(sql, REORG_RECHECK_SECONDS);
          return;
        }
        await session.query('SELECT pg_advisory_unlock($1)', [GATE_LOCK]);
      }
    } finally {
      // whatever threw: neither the signer nor the gate may stay with a pooled connection
      session.off('error', onLost);
      session.off('end', onLost);
      if (locked && !lockLost.signal.aborted)
        await session.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
      session.release(lockLost.signal.aborted || undefined); // a dead connection is not given back to the pool
    }
  };
  return traced;
}

import { setTimeout as sleep } from 'node:timers/promises';
import type { Task } from 'graphile-worker';
import type { Pool } from '../db/sql.ts';
import { advisoryUnlock, advisoryUnlockAll, openSession, tryAdvisoryLock } from '../db/advisory-lock-sessions.ts';
import { addRelayJob, GATE_LOCK, SIGNER_LOCK } from './relay-job-store.ts';
import { REORG_RECHECK_SECONDS } from './reorg.ts';
import type { Relayer } from './relayer.ts';
import { tracer, traceparentIn } from '../tracing/tracing.ts';

export { enqueueRelay, RELAY_TASK } from './relay-job-store.ts';

/** How often a relayer's run is looked after by a later job, in case its process dies without coming back. */
const WATCH_SECONDS = 10;

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
    const session = await openSession(pool); // the locks are this connection's: the pool may be busy
    const { db } = session;
    // the signer's lock lives and dies with this connection (PostgreSQL restarted, the session killed): then another
    // relayer may take the lock, so this one stops at once and leaves what is in flight to the journal
    const signal = AbortSignal.any([helpers.abortSignal, session.lost]);
    let locked = false;
    try {
      locked = await tryAdvisoryLock(db, SIGNER_LOCK);
      if (!locked || (await relayer.hasWork())) await addRelayJob(db, WATCH_SECONDS);
      if (!locked) return;
      for (;;) {
        await relayer.run(signal);
        if (session.lost.aborted) return; // the relayer that takes the lock reconciles the journal
        if (helpers.abortSignal.aborted) return await addRelayJob(db, 0);
        if (!(await tryAdvisoryLock(db, GATE_LOCK))) {
          await sleep(50); // a request is adding work right now
          continue;
        }
        const more = await relayer.hasWork().catch(() => true);
        if (!more) {
          // the signer before the gate: a request waiting at the gate must find no relayer, or it adds no job.
          // pg_advisory_unlock_all frees locks in lock-table order, which may wake that request first
          await advisoryUnlock(db, SIGNER_LOCK);
          await advisoryUnlock(db, GATE_LOCK);
          locked = false;
          // what it reported mined is looked at again until it is deep enough that no reorg takes it away
          if (await relayer.watching().catch(() => false)) await addRelayJob(db, REORG_RECHECK_SECONDS);
          return;
        }
        await advisoryUnlock(db, GATE_LOCK);
      }
    } finally {
      // whatever threw: neither the signer nor the gate may stay with a pooled connection
      if (locked && !session.lost.aborted) await advisoryUnlockAll(db).catch(() => undefined);
      session.release(); // a dead connection is not given back to the pool
    }
  };
  return traced;
}

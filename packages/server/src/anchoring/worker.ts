import type { TaskList } from 'graphile-worker';
import type { Hex, PublicClient } from 'viem';
import type { RoundWork } from '../chain/round.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { Pool } from '../db/sql.ts';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { anchorTask } from './anchor.task.ts';
import { createAnchorer } from './anchorer.ts';
import { anchorWork } from './relay-work.ts';
import { ANCHOR_TASK, ensureAnchorScheduled } from './schedule-store.ts';

/** How often a worker makes sure an anchor run is coming (the one scheduled may have died with its worker). */
const ENSURE_EVERY_MS = 30_000;

interface AnchoringDeps {
  db: Db;
  /** The pool under `db`: an anchor run holds its lock on a connection of its own. */
  pool: Pool;
  clock: Clock;
  log: Logger;
  chain: { publicClient: PublicClient; eas: Hex };
  /** ANCHOR_INTERVAL; 0: no anchor is made (those already made are still sent and confirmed). */
  intervalMs: number;
}

/**
 * Anchoring in a worker process: the relayer's work (always: anchors made before still finish), the task and its
 * schedule (when ANCHOR_INTERVAL is not 0).
 */
export function anchoringWorker(deps: AnchoringDeps): {
  work: RoundWork;
  tasks: TaskList;
  start(): Promise<() => Promise<void>>;
} {
  const { db, log, intervalMs } = deps;
  const work = anchorWork({ db, eas: deps.chain.eas, clock: deps.clock, log });
  if (intervalMs === 0) return { work, tasks: {}, start: async () => async () => undefined };
  const anchorer = createAnchorer(deps);
  const notScheduled = (error: unknown) =>
    log.warn({ error: describeError(error) }, 'could not schedule an anchor run');
  const ensure = () => ensureAnchorScheduled(db, intervalMs);
  return {
    work,
    tasks: { [ANCHOR_TASK]: anchorTask(anchorer, db, intervalMs, log) },
    async start() {
      await ensure().catch(notScheduled);
      const every = Math.min(ENSURE_EVERY_MS, intervalMs);
      const timer = setInterval(() => {
        ensure().catch(notScheduled);
      }, every);
      return async () => clearInterval(timer);
    },
  };
}

import type { TaskList } from 'graphile-worker';
import type { Hex, PublicClient } from 'viem';
import type { RoundWork } from '../chain/round.ts';
import type { Clock } from '../clock.ts';
import { pgSql, type Pool } from '../db/sql.ts';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { ANCHOR_TASK, anchorTask, ensureAnchorScheduled } from './anchor.task.ts';
import { createAnchorer } from './anchorer.ts';
import { anchorWork } from './relay-work.ts';

/** How often a worker makes sure an anchor run is coming (the one scheduled may have died with its worker). */
const ENSURE_EVERY_MS = 30_000;

export interface AnchoringDeps {
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
  const { pool, log, intervalMs } = deps;
  const work = anchorWork({ pool, eas: deps.chain.eas, clock: deps.clock, log });
  if (intervalMs === 0) return { work, tasks: {}, start: async () => async () => undefined };
  const anchorer = createAnchorer(deps);
  const ensure = () =>
    ensureAnchorScheduled(pgSql(pool), intervalMs).catch((error: unknown) =>
      log.warn({ error: describeError(error) }, 'could not schedule an anchor run'),
    );
  return {
    work,
    tasks: { [ANCHOR_TASK]: anchorTask(anchorer, pool, intervalMs, log) },
    async start() {
      await ensure();
      const timer = setInterval(ensure, Math.min(ENSURE_EVERY_MS, intervalMs));
      return async () => clearInterval(timer);
    },
  };
}

import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { Logger } from '../log.ts';
import type { Flight, PipelineOptions } from './flight.ts';
import type { RoundWork } from './round.ts';
import type { Sender } from './sender.ts';
import type { Watch } from './watch.ts';

/** What the pipeline's steps work with: the journal, the node (through its sender and watch), and the works it sends. */
export interface PipelineDeps {
  db: Db;
  sender: Sender;
  watch: Watch;
  clock: Clock;
  log: Logger;
  works: RoundWork[];
  /** Transactions finished as mined whose block a reorg took away, in flight again (chain/reorg.ts). */
  reorged?: () => Promise<Flight[]>;
}

/** What the pipeline keeps from one step to the next. */
export interface PipelineState {
  /** The transactions in flight, oldest nonce first (always this one array: `flights()` hands it out). */
  readonly flights: Flight[];
  /** The nonce of the next transaction while others are in flight. */
  nextNonce: number;
  /** The work whose turn comes first at the next launch (works take turns). */
  cursor: number;
  /** The oldest unmined transaction whose stuck clock runs (its journal id). */
  head: string | undefined;
  /** The gas one transaction may use, as last decided (chain/pipeline-launch.ts). */
  gasTarget: bigint | undefined;
  /** The gas limit of the latest block the sender read. */
  blockGas: bigint | undefined;
  /** When reorgs were last looked for (real time). */
  reorgLookedAt: number;
  /** Since when a short transaction from idle lingers for more items (real time; chain/flight.ts, `lingerWaits`). */
  heldSince: number | undefined;
  /** Whether the last claim was declined to linger: the pipeline then waits out the linger instead of ending. */
  holding: boolean;
}

/** A pipeline's state before its first step: nothing in flight, RELAY_GAS_TARGET (if set) as its gas target. */
export function initialPipelineState(opts: PipelineOptions): PipelineState {
  return {
    flights: [],
    nextNonce: 0,
    cursor: 0,
    head: undefined,
    gasTarget: opts.gasTarget,
    blockGas: undefined,
    reorgLookedAt: 0,
    heldSince: undefined,
    holding: false,
  };
}

import { setTimeout as sleep } from 'node:timers/promises';
import { firstLine } from './broadcast.ts';
import type { Flight, PipelineOptions } from './flight.ts';
import { launchNext } from './pipeline-launch.ts';
import { settle } from './pipeline-settle.ts';
import { initialPipelineState, type PipelineDeps, type PipelineState } from './pipeline-state.ts';
import { REORG_CHECK_MS } from './reorg.ts';
import type { Sender } from './sender.ts';

export type { Flight, PipelineOptions } from './flight.ts';

/** How often the chain is asked about the transactions in flight. */
const POLL_MS = 200;

/**
 * The relayer's pipeline: up to `maxInFlight` transactions at consecutive nonces, each carrying as many pending
 * items of one work as fit the gas target (chain/pipeline-launch.ts); each one finished as soon as its own receipt is
 * in. The oldest unmined one, when stuck, is sent again (the node forgot it) or re-signed with bumped fees while the
 * later ones wait; one whose nonce another transaction took gives its items back to the queue
 * (chain/pipeline-settle.ts).
 */
export function createPipeline(deps: PipelineDeps, opts: PipelineOptions) {
  const state = initialPipelineState(opts);
  return {
    /** Takes over transactions a previous run left in the journal; the node gets their bytes again. */
    adopt: (adopted: Flight[]): Promise<void> => adopt(deps.sender, state, adopted),
    /** Sends and finishes until nothing is pending or in flight (or `signal` aborts: the journal keeps the rest). */
    run: (signal?: AbortSignal): Promise<void> => run(deps, opts, state, signal),
    /** The transactions in flight now, oldest nonce first. */
    flights: (): readonly Flight[] => state.flights,
    gasTarget: (): bigint | undefined => state.gasTarget,
  };
}

async function adopt(sender: Sender, state: PipelineState, adopted: Flight[]): Promise<void> {
  const { flights } = state;
  flights.splice(0, flights.length, ...adopted.sort((a, b) => a.nonce - b.nonce));
  state.head = undefined;
  state.nextNonce = flights.length > 0 ? flights.at(-1)!.nonce + 1 : 0;
  for (const flight of flights) await sender.resend(flight.journalId, flight.raw);
}

async function run(deps: PipelineDeps, opts: PipelineOptions, state: PipelineState, signal?: AbortSignal) {
  while (!signal?.aborted) {
    await lookForReorgs(deps, state);
    const launched = await launchWhileRoom(deps, opts, state, signal);
    if (state.flights.length === 0 && state.holding) {
      // short items from idle linger for more (chain/flight.ts, `lingerWaits`): wait out the rest of it
      const rest = state.heldSince! + (opts.lingerMs ?? 0) - Date.now();
      await sleep(Math.max(1, rest), undefined, { signal }).catch(() => undefined);
      continue;
    }
    if (state.flights.length === 0) return;
    const progressed = await settle(deps, opts, state, Date.now());
    if (!progressed && !launched) await sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
  }
}

/** Launches while fewer than `maxInFlight` are in flight and work waits; returns whether any transaction went out. */
async function launchWhileRoom(
  deps: PipelineDeps,
  opts: PipelineOptions,
  state: PipelineState,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  let launched = false;
  while (state.flights.length < opts.maxInFlight && !signal?.aborted) {
    const result = await launchNext(deps, opts, state);
    if (result === 'idle') break;
    launched ||= result === 'launched';
  }
  return launched;
}

/** Transactions a reorg took back join those in flight at their nonces; the node gets their bytes again. */
async function lookForReorgs(deps: PipelineDeps, state: PipelineState): Promise<void> {
  if (!deps.reorged || Date.now() - state.reorgLookedAt < REORG_CHECK_MS) return;
  state.reorgLookedAt = Date.now();
  const back = await deps.reorged().catch((error: unknown) => {
    deps.log.warn({ error: firstLine(error) }, 'could not look for reorgs');
    return [];
  });
  if (back.length === 0) return;
  const { flights } = state;
  flights.push(...back);
  flights.sort((a, b) => a.nonce - b.nonce);
  state.nextNonce = Math.max(state.nextNonce, flights.at(-1)!.nonce + 1);
  state.head = undefined;
  for (const flight of back) await deps.sender.resend(flight.journalId, flight.raw);
}

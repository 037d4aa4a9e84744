import { firstLine } from './broadcast.ts';
import type { Flight, PipelineOptions } from './flight.ts';
import { recordFailedBlock } from './journal-store.ts';
import type { PipelineDeps, PipelineState } from './pipeline-state.ts';
import type { Sighting } from './watch.ts';

/** How long a used nonce may go without a receipt for any of its hashes before it counts as taken by another. */
export const LOST_GRACE_MS = 2_000;

/** What one look at the chain made of a transaction in flight: it left the pipeline, waits unmined, or stays (mined, or lost for a moment). */
type FlightFate = 'left' | 'unmined' | 'stays';

/**
 * Whether a transaction whose nonce another used has been seen so for LOST_GRACE_MS: its clock starts at the first
 * such sighting (a receipt may lag the nonce a moment).
 */
export function lostTooLong(flight: Pick<Flight, 'lostSince'>, now: number): boolean {
  flight.lostSince ??= now;
  return now - flight.lostSince >= LOST_GRACE_MS;
}

/**
 * Whether the oldest unmined transaction has been stuck for `stuckAfterMs`: its clock starts when it becomes the head
 * (never before its last signature), and starts again when this says yes.
 */
export function stuckLongEnough(
  state: Pick<PipelineState, 'head'>,
  first: Pick<Flight, 'journalId' | 'since'>,
  now: number,
  stuckAfterMs: number,
): boolean {
  if (first.journalId !== state.head) {
    state.head = first.journalId;
    first.since = Math.max(first.since, now);
  }
  if (now - first.since < stuckAfterMs) return false;
  first.since = now;
  return true;
}

/** Acts on what the chain says of one transaction: finishes it when mined (or its nonce lost), else keeps watching. */
export async function settleFlight(
  deps: Pick<PipelineDeps, 'db' | 'sender' | 'log'>,
  flight: Flight,
  seen: Sighting,
  now: number,
): Promise<FlightFate> {
  const { db, sender, log } = deps;
  if (seen.state === 'mined') {
    await flight.work.finish(flight.journalId, seen.receipt);
    // a reverted one is watched too: a reorg that takes its block frees a nonce the later ones need
    if (seen.receipt.status !== 'success') await recordFailedBlock(db, flight.journalId, seen.receipt);
    return 'left';
  }
  if (seen.state === 'confirming') flight.seenMined = true;
  else if (seen.state === 'pending' && flight.seenMined) {
    // its block left the chain before its confirmations: a node that dropped it gets its bytes at once
    delete flight.seenMined;
    log.warn({ journalId: flight.journalId, nonce: flight.nonce }, 'reorg: a transaction left its block');
    if (!(await sender.known(flight.hash))) await sender.resend(flight.journalId, flight.raw);
  }
  if (seen.state === 'lost') {
    if (lostTooLong(flight, now)) {
      log.warn({ journalId: flight.journalId, nonce: flight.nonce }, 'nonce taken by another transaction: requeued');
      await flight.work.finish(flight.journalId, 'dropped');
      return 'left';
    }
  } else delete flight.lostSince;
  // mined and waiting for its confirmations is not stuck
  return seen.state === 'pending' ? 'unmined' : 'stays';
}

/** Finishes what the chain has decided; returns whether any transaction left the pipeline. */
export async function settle(
  deps: PipelineDeps,
  opts: PipelineOptions,
  state: PipelineState,
  now: number,
): Promise<boolean> {
  const { flights } = state;
  const sightings = await deps.watch.look(flights).catch((error: unknown) => {
    deps.log.warn({ error: firstLine(error) }, 'could not look at the transactions in flight');
    return undefined;
  });
  if (!sightings) return false;
  const remaining: Flight[] = [];
  let oldestUnmined: Flight | undefined;
  for (const [i, flight] of flights.entries()) {
    const fate = await settleFlight(deps, flight, sightings[i]!, now);
    if (fate === 'left') continue;
    if (fate === 'unmined') oldestUnmined ??= flight;
    remaining.push(flight);
  }
  const progressed = remaining.length < flights.length;
  flights.splice(0, flights.length, ...remaining);
  if (oldestUnmined) await unstick(deps, opts, state, oldestUnmined, now);
  return progressed;
}

/** The oldest unmined transaction, once stuck: its bytes again if the node forgot it, else higher fees. */
async function unstick(
  deps: PipelineDeps,
  opts: PipelineOptions,
  state: PipelineState,
  first: Flight,
  now: number,
): Promise<void> {
  if (!stuckLongEnough(state, first, now, opts.stuckAfterMs)) return;
  // a node that forgot a transaction gets its bytes again; one that refuses them (priced out) gets higher fees
  const resent = await resendForgotten(deps, state.flights, first);
  if (resent || first.bumps >= opts.maxBumps) return;
  await bumpFees(deps, first);
}

/** Every transaction in flight the node forgot gets its bytes again; returns whether the node took `first`'s. */
async function resendForgotten(
  { sender, log }: Pick<PipelineDeps, 'sender' | 'log'>,
  flights: readonly Flight[],
  first: Flight,
): Promise<boolean> {
  let resent = false;
  for (const flight of flights) {
    if (await sender.known(flight.hash)) continue;
    log.warn(
      { journalId: flight.journalId, nonce: flight.nonce, hash: flight.hash },
      'node forgot a transaction: resent',
    );
    const taken = await sender.resend(flight.journalId, flight.raw);
    if (flight === first) resent = taken;
  }
  return resent;
}

/** Re-signs a stuck transaction at its nonce with higher fees (when the sender finds some to offer). */
async function bumpFees({ sender, log }: Pick<PipelineDeps, 'sender' | 'log'>, first: Flight): Promise<void> {
  const bumped = await sender.bump(first.journalId, first);
  if (!bumped) return;
  Object.assign(first, bumped, { bumps: first.bumps + 1, since: Date.now() });
  first.hashes.push(bumped.hash);
  log.warn(
    {
      journalId: first.journalId,
      nonce: first.nonce,
      hash: bumped.hash,
      maxFeePerGas: String(bumped.fees.maxFeePerGas),
    },
    'transaction stuck: re-signed with higher fees',
  );
}

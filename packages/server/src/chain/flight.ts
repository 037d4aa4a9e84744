import type { Hex } from 'viem';
import type { RoundWork } from './round.ts';
import type { SignedTx } from './sender.ts';

/** A transaction between its broadcast and its receipt. */
export interface Flight extends SignedTx {
  journalId: string;
  work: RoundWork;
  /** Every hash signed for its nonce (each fee bump adds one); any of them may be the one mined. */
  hashes: Hex[];
  /** How many items it carries (0 when picked up from the journal after a restart: not counted again). */
  items: number;
  /** When it was first signed (real time). */
  sentAt: number;
  /** When its stuck clock started: its last signature, or when it became the oldest unmined one. */
  since: number;
  bumps: number;
  /** When its nonce was first seen used by none of its hashes. */
  lostSince?: number;
  /** Seen in a block (waiting for its confirmations): back in the mempool or gone after that means a reorg. */
  seenMined?: boolean;
}

export interface PipelineOptions {
  /** Transactions in flight at consecutive nonces at most. */
  maxInFlight: number;
  /** Gas one transaction may use; undefined: half the latest block's gas limit. */
  gasTarget?: bigint | undefined;
  /** The oldest unmined transaction is resent or bumped after this long. */
  stuckAfterMs: number;
  /** How many fee bumps a transaction gets (then it waits at its fees; a forgetful node still gets its bytes). */
  maxBumps: number;
  /** How long a short transaction from idle waits for more items (`lingerWaits`); 0 or undefined: it goes at once. */
  lingerMs?: number | undefined;
}

/**
 * Whether a transaction of this estimated gas should wait for more items: when it is short of the budget (90%) and
 * the transactions in flight (`queued`, their gas limits) leave no room for it in the next block. Sent then, it would
 * take the room a full one needs in the block after; waiting lets it fill up. Where it still fits beside them (the
 * last items of a burst, a block half full), it goes at once: waiting would only cost that block its room. With no
 * block gas limit known, it waits whenever a full transaction's worth is in flight.
 */
export function shortTransactionWaits(at: {
  estimated: bigint;
  budget: bigint | undefined;
  queued: bigint;
  blockGas: bigint | undefined;
}): boolean {
  const { estimated, budget, queued, blockGas } = at;
  if (budget === undefined || queued < budget) return false;
  if (!shortOf(estimated, budget)) return false;
  return blockGas === undefined || queued + estimated > blockGas;
}

/**
 * Whether a short transaction (under 90% of the budget) lingers for more items when nothing is in flight: until
 * `lingerMs` after its first items were found waiting (`heldSince`). A burst that reaches an idle relayer then leaves
 * in transactions of many items rather than one of its first item and the rest behind it: fewer transactions and fees,
 * and the block it lands in carries the burst's first hundreds. A lone item pays the linger at most once, and only
 * when a block falls inside it (on average the linger itself). With transactions in flight, `shortTransactionWaits`
 * decides instead.
 */
export function lingerWaits(at: {
  estimated: bigint;
  budget: bigint | undefined;
  inFlight: number;
  heldSince: number;
  now: number;
  lingerMs: number | undefined;
}): boolean {
  const { estimated, budget, inFlight, heldSince, now, lingerMs } = at;
  if (!lingerMs || inFlight > 0 || budget === undefined) return false;
  return shortOf(estimated, budget) && now - heldSince < lingerMs;
}

/** Whether a transaction's estimate is short of its budget: under 90% of it (the two rules above wait only then). */
function shortOf(estimated: bigint, budget: bigint): boolean {
  return estimated * 10n < budget * 9n;
}

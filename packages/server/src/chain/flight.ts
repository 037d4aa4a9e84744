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
}

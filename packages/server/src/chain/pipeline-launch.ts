import { inTransaction } from '../db/database.ts';
import { lingerWaits, shortTransactionWaits, type Flight, type PipelineOptions } from './flight.ts';
import { recordFailed, recordIntent } from './journal-store.ts';
import type { PipelineDeps, PipelineState } from './pipeline-state.ts';
import type { RoundWork } from './round.ts';
import { NotSentError, type Sender, type SignedTx } from './sender.ts';

/** Items of one work tied to a journal entry, not yet sent. */
interface ClaimedTurn {
  work: RoundWork;
  journalId: string;
  count: number;
}

/**
 * The gas one transaction may use: RELAY_GAS_TARGET when set, else half the latest block's gas limit; when the node
 * could not say, the target decided before (undefined before any block was read).
 */
export function gasTargetOf(
  fixed: bigint | undefined,
  blockGasLimit: bigint | undefined,
  previous: bigint | undefined,
): bigint | undefined {
  if (fixed !== undefined) return fixed;
  return blockGasLimit === undefined ? previous : blockGasLimit / 2n;
}

/** The gas a transaction's estimate may use: the gas limit keeps 2% over the estimate, so up to 98% of the target. */
export function estimateBudget(gasTarget: bigint | undefined): bigint | undefined {
  return gasTarget === undefined ? undefined : (gasTarget * 100n) / 102n;
}

/**
 * Whether a transaction of some estimated gas waits for more items: from idle, while it lingers (flight.ts,
 * `lingerWaits`; a linger that begins marks the state as holding since `now`), else beside the transactions in flight
 * now (their gas limits) and the block gas limit as the state holds it when asked (`shortTransactionWaits`).
 */
export function partialWaits(
  state: Pick<PipelineState, 'flights' | 'blockGas' | 'heldSince' | 'holding'>,
  budget: bigint | undefined,
  linger: { lingerMs?: number | undefined; now: number } = { now: 0 },
): (estimated: bigint) => boolean {
  const queued = state.flights.reduce((sum, f) => sum + f.gas, 0n);
  return (estimated) => {
    const heldSince = state.heldSince ?? linger.now;
    const inFlight = state.flights.length;
    if (lingerWaits({ estimated, budget, inFlight, heldSince, now: linger.now, lingerMs: linger.lingerMs })) {
      state.heldSince = heldSince;
      state.holding = true;
      return true;
    }
    return shortTransactionWaits({ estimated, budget, queued, blockGas: state.blockGas });
  };
}

/** A transaction just sent, as the pipeline watches it: its one hash so far, its stuck clock started now. */
export function newFlight(signed: SignedTx, turn: ClaimedTurn, now: number): Flight {
  return {
    ...signed,
    journalId: turn.journalId,
    work: turn.work,
    hashes: [signed.hash],
    items: turn.count,
    sentAt: now,
    since: now,
    bumps: 0,
  };
}

/** RELAY_GAS_TARGET, or half the gas limit of the latest block the sender read (undefined if it cannot say). */
async function readGasTarget(sender: Sender, opts: PipelineOptions, state: PipelineState): Promise<bigint | undefined> {
  const limit = await sender.blockGasLimit().catch(() => undefined);
  if (limit !== undefined) state.blockGas = limit;
  return gasTargetOf(opts.gasTarget, limit, state.gasTarget);
}

/**
 * Ties the waiting items of the next work that has some (works take turns) to a journal entry; undefined: none wait,
 * or those that wait linger (`lingerMs`, see `partialWaits`).
 */
export async function claimTurn(
  deps: PipelineDeps,
  state: PipelineState,
  lingerMs?: number,
): Promise<ClaimedTurn | undefined> {
  const { db, works } = deps;
  for (let i = 0; i < works.length; i++) {
    const work = works[(state.cursor + i) % works.length]!;
    const budget = estimateBudget(state.gasTarget);
    const waits = partialWaits(state, budget, { lingerMs, now: Date.now() });
    const claimed = await inTransaction(db, (tx) =>
      work.claim(tx, budget, async (estimated) => (waits(estimated) ? undefined : recordIntent(tx, work.kind))),
    );
    if (!claimed) continue;
    state.cursor = (state.cursor + i + 1) % works.length;
    return { work, journalId: claimed.journalId, count: claimed.count };
  }
  return undefined;
}

/** Signs and sends a claimed turn at the next nonce; 'failed' when nothing reached the chain (its items fail). */
async function sendTurn(deps: PipelineDeps, state: PipelineState, turn: ClaimedTurn): Promise<'launched' | 'failed'> {
  const { sender, log } = deps;
  const { work, journalId, count } = turn;
  try {
    const data = await work.calldata(journalId);
    const { gas, fees } = await sender.prepare(work.to, data, state.gasTarget ?? 2n ** 64n);
    // while transactions are in flight the next nonce is ours to say; from none, the node's count may be higher
    const nonce = state.flights.length > 0 ? state.nextNonce : await sender.nonceFrom(state.nextNonce);
    const signed = await sender.launch(journalId, { to: work.to, data, nonce, gas, fees });
    state.nextNonce = nonce + 1;
    state.flights.push(newFlight(signed, turn, Date.now()));
    log.debug({ journalId, nonce, items: count, hash: signed.hash }, 'relay transaction sent');
    return 'launched';
  } catch (error) {
    if (!(error instanceof NotSentError)) throw error;
    await failNotSent(deps, turn, error);
    return 'failed';
  }
}

/** Nothing of a turn reached the chain: its items fail, and its nonce (if it had one) goes to the next transaction. */
async function failNotSent(deps: PipelineDeps, { work, journalId }: ClaimedTurn, error: NotSentError): Promise<void> {
  work.onNotSent?.(journalId, error.message);
  await inTransaction(deps.db, async (tx) => {
    await work.fail(tx, journalId, error.message);
    await recordFailed(tx, journalId, error.message, new Date(deps.clock.now()));
  });
}

/** One transaction of the next work with items waiting (works take turns); 'idle' when none wait. */
export async function launchNext(
  deps: PipelineDeps,
  opts: PipelineOptions,
  state: PipelineState,
): Promise<'launched' | 'failed' | 'idle'> {
  state.gasTarget = await readGasTarget(deps.sender, opts, state);
  state.holding = false;
  const turn = await claimTurn(deps, state, opts.lingerMs);
  if (!state.holding) state.heldSince = undefined; // a linger ends when its items go, or when none wait
  if (!turn) return 'idle';
  return sendTurn(deps, state, turn);
}

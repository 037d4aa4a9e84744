import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import type { Logger } from '../log.ts';
import { firstLine } from './broadcast.ts';
import { shortTransactionWaits, type Flight, type PipelineOptions } from './flight.ts';
import { recordFailed, recordFailedBlock, recordIntent } from './journal-store.ts';
import { REORG_CHECK_MS } from './reorg.ts';
import type { RoundWork } from './round.ts';
import { NotSentError, type Sender } from './sender.ts';
import type { Watch } from './watch.ts';

export type { Flight, PipelineOptions } from './flight.ts';

/** How often the chain is asked about the transactions in flight. */
const POLL_MS = 200;
/** How long a used nonce may go without a receipt for any of its hashes before it counts as taken by another. */
const LOST_GRACE_MS = 2_000;

/**
 * The relayer's pipeline: up to `maxInFlight` transactions at consecutive nonces, each carrying as many pending
 * items of one work as fit the gas target; each one finished as soon as its own receipt is in. The oldest unmined
 * one, when stuck, is sent again (the node forgot it) or re-signed with bumped fees while the later ones wait; one
 * whose nonce another transaction took gives its items back to the queue.
 */
export function createPipeline(
  deps: {
    db: Db;
    sender: Sender;
    watch: Watch;
    clock: Clock;
    log: Logger;
    works: RoundWork[];
    /** Transactions finished as mined whose block a reorg took away, in flight again (chain/reorg.ts). */
    reorged?: () => Promise<Flight[]>;
  },
  opts: PipelineOptions,
) {
  const { db, sender, watch, clock, log, works } = deps;
  let reorgLookedAt = 0;
  const flights: Flight[] = [];
  let nextNonce = 0;
  let cursor = 0;
  let head: string | undefined;
  let gasTarget: bigint | undefined = opts.gasTarget;

  let blockGas: bigint | undefined;

  /** RELAY_GAS_TARGET, or half the gas limit of the latest block the sender read (undefined if it cannot say). */
  async function currentGasTarget(): Promise<bigint | undefined> {
    const limit = await sender.blockGasLimit().catch(() => undefined);
    if (limit !== undefined) blockGas = limit;
    if (opts.gasTarget !== undefined) return opts.gasTarget;
    return limit === undefined ? gasTarget : limit / 2n;
  }

  function partialWaits(budget: bigint | undefined): (estimated: bigint) => boolean {
    const queued = flights.reduce((sum, f) => sum + f.gas, 0n);
    return (estimated) => shortTransactionWaits({ estimated, budget, queued, blockGas });
  }

  /** One transaction of the next work with items waiting (works take turns); 'idle' when none wait. */
  async function launchNext(): Promise<'launched' | 'failed' | 'idle'> {
    gasTarget = await currentGasTarget();
    for (let i = 0; i < works.length; i++) {
      const work = works[(cursor + i) % works.length]!;
      // the gas limit keeps 2% over the estimate: the estimate may use up to 98% of the target
      const budget = gasTarget === undefined ? undefined : (gasTarget * 100n) / 102n;
      const waits = partialWaits(budget);
      const claimed = await inTransaction(db, (tx) =>
        work.claim(tx, budget, async (estimated) => (waits(estimated) ? undefined : recordIntent(tx, work.kind))),
      );
      if (!claimed) continue;
      cursor = (cursor + i + 1) % works.length;
      const { journalId, count } = claimed;
      try {
        const data = await work.calldata(journalId);
        const { gas, fees } = await sender.prepare(work.to, data, gasTarget ?? 2n ** 64n);
        // while transactions are in flight the next nonce is ours to say; from none, the node's count may be higher
        const nonce = flights.length > 0 ? nextNonce : await sender.nonceFrom(nextNonce);
        const signed = await sender.launch(journalId, { to: work.to, data, nonce, gas, fees });
        nextNonce = nonce + 1;
        const now = Date.now();
        flights.push({
          ...signed,
          journalId,
          work,
          hashes: [signed.hash],
          items: count,
          sentAt: now,
          since: now,
          bumps: 0,
        });
        log.debug({ journalId, nonce, items: count, hash: signed.hash }, 'relay transaction sent');
        return 'launched';
      } catch (error) {
        if (!(error instanceof NotSentError)) throw error;
        // nothing reached the chain: its items fail, and its nonce (if it had one) goes to the next transaction
        work.onNotSent?.(journalId, error.message);
        await inTransaction(db, async (tx) => {
          await work.fail(tx, journalId, error.message);
          await recordFailed(tx, journalId, error.message, new Date(clock.now()));
        });
        return 'failed';
      }
    }
    return 'idle';
  }

  /** Finishes what the chain has decided; returns whether any transaction left the pipeline. */
  async function settle(now: number): Promise<boolean> {
    const sightings = await watch.look(flights).catch((error: unknown) => {
      log.warn({ error: firstLine(error) }, 'could not look at the transactions in flight');
      return undefined;
    });
    if (!sightings) return false;
    const remaining: Flight[] = [];
    let oldestUnmined: Flight | undefined;
    for (const [i, flight] of flights.entries()) {
      const seen = sightings[i]!;
      if (seen.state === 'mined') {
        await flight.work.finish(flight.journalId, seen.receipt);
        // a reverted one is watched too: a reorg that takes its block frees a nonce the later ones need
        if (seen.receipt.status !== 'success') await recordFailedBlock(db, flight.journalId, seen.receipt);
        continue;
      }
      if (seen.state === 'confirming') flight.seenMined = true;
      else if (seen.state === 'pending' && flight.seenMined) {
        // its block left the chain before its confirmations: a node that dropped it gets its bytes at once
        delete flight.seenMined;
        log.warn({ journalId: flight.journalId, nonce: flight.nonce }, 'reorg: a transaction left its block');
        if (!(await sender.known(flight.hash))) await sender.resend(flight.journalId, flight.raw);
      }
      if (seen.state === 'lost') {
        flight.lostSince ??= now;
        if (now - flight.lostSince >= LOST_GRACE_MS) {
          log.warn(
            { journalId: flight.journalId, nonce: flight.nonce },
            'nonce taken by another transaction: requeued',
          );
          await flight.work.finish(flight.journalId, 'dropped');
          continue;
        }
      } else delete flight.lostSince;
      // mined and waiting for its confirmations is not stuck
      if (seen.state === 'pending') oldestUnmined ??= flight;
      remaining.push(flight);
    }
    const progressed = remaining.length < flights.length;
    flights.splice(0, flights.length, ...remaining);
    if (oldestUnmined) await unstick(oldestUnmined, now);
    return progressed;
  }

  /** The oldest unmined transaction, once stuck: its bytes again if the node forgot it, else higher fees. */
  async function unstick(first: Flight, now: number): Promise<void> {
    if (first.journalId !== head) {
      head = first.journalId;
      first.since = Math.max(first.since, now);
    }
    if (now - first.since < opts.stuckAfterMs) return;
    first.since = now;
    // a node that forgot a transaction gets its bytes again; one that refuses them (priced out) gets higher fees
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
    if (resent || first.bumps >= opts.maxBumps) return;
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

  /** Transactions a reorg took back join those in flight at their nonces; the node gets their bytes again. */
  async function lookForReorgs(): Promise<void> {
    if (!deps.reorged || Date.now() - reorgLookedAt < REORG_CHECK_MS) return;
    reorgLookedAt = Date.now();
    const back = await deps.reorged().catch((error: unknown) => {
      log.warn({ error: firstLine(error) }, 'could not look for reorgs');
      return [];
    });
    if (back.length === 0) return;
    flights.push(...back);
    flights.sort((a, b) => a.nonce - b.nonce);
    nextNonce = Math.max(nextNonce, flights.at(-1)!.nonce + 1);
    head = undefined;
    for (const flight of back) await sender.resend(flight.journalId, flight.raw);
  }

  return {
    /** Takes over transactions a previous run left in the journal; the node gets their bytes again. */
    async adopt(adopted: Flight[]): Promise<void> {
      flights.splice(0, flights.length, ...adopted.sort((a, b) => a.nonce - b.nonce));
      head = undefined;
      nextNonce = flights.length > 0 ? flights.at(-1)!.nonce + 1 : 0;
      for (const flight of flights) await sender.resend(flight.journalId, flight.raw);
    },

    /** Sends and finishes until nothing is pending or in flight (or `signal` aborts: the journal keeps the rest). */
    async run(signal?: AbortSignal): Promise<void> {
      while (!signal?.aborted) {
        await lookForReorgs();
        let launched = false;
        while (flights.length < opts.maxInFlight && !signal?.aborted) {
          const result = await launchNext();
          if (result === 'idle') break;
          launched ||= result === 'launched';
        }
        if (flights.length === 0) return;
        const progressed = await settle(Date.now());
        if (!progressed && !launched) await sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
      }
    },

    /** The transactions in flight now, oldest nonce first. */
    flights: (): readonly Flight[] => flights,
    gasTarget: () => gasTarget,
  };
}

export type Pipeline = ReturnType<typeof createPipeline>;

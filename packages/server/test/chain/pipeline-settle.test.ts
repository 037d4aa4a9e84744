import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Flight } from '../../src/chain/flight.ts';
import { recordFailed, recordIntent } from '../../src/chain/journal-store.ts';
import { launchNext, newFlight } from '../../src/chain/pipeline-launch.ts';
import { LOST_GRACE_MS, lostTooLong, settle, settleFlight, stuckLongEnough } from '../../src/chain/pipeline-settle.ts';
import { initialPipelineState, type PipelineState } from '../../src/chain/pipeline-state.ts';
import { createWatch, type Sighting, type Watch } from '../../src/chain/watch.ts';
import { until } from '../support/anvil.ts';
import { NOBODY, startPipelineBench, testWork, type PipelineBench, type TestWork } from './pipeline-support.ts';

// The settle step of the relayer's pipeline (chain/pipeline-settle.ts): what each sighting of a transaction in flight
// does to it, on a real anvil (mining steered) and a real journal.
const opts = { maxInFlight: 4, stuckAfterMs: 60_000, maxBumps: 3 };

describe('the clocks of a transaction in flight', () => {
  it('counts a nonce as taken by another once it has gone LOST_GRACE_MS without a receipt', () => {
    const flight: Pick<Flight, 'lostSince'> = {};
    expect(lostTooLong(flight, 1_000)).toBe(false);
    expect(flight.lostSince).toBe(1_000);
    expect(lostTooLong(flight, 1_000 + LOST_GRACE_MS - 1)).toBe(false);
    expect(lostTooLong(flight, 1_000 + LOST_GRACE_MS)).toBe(true);
  });

  it('starts the stuck clock when a transaction becomes the oldest unmined one, never before its last signature', () => {
    const state = { head: undefined as string | undefined };
    const first = { journalId: '1', since: 5_000 };
    expect(stuckLongEnough(state, first, 4_000, 1_000)).toBe(false);
    expect([state.head, first.since]).toEqual(['1', 5_000]);
    expect(stuckLongEnough(state, first, 5_999, 1_000)).toBe(false);
    expect(stuckLongEnough(state, first, 6_000, 1_000)).toBe(true);
    // once acted on, its clock starts again
    expect(first.since).toBe(6_000);
    expect(stuckLongEnough(state, first, 6_500, 1_000)).toBe(false);
    const next = { journalId: '2', since: 0 };
    expect(stuckLongEnough(state, next, 7_000, 1_000)).toBe(false);
    expect([state.head, next.since]).toEqual(['2', 7_000]);
  });
});

// the settle step on a real chain and journal
let bench: PipelineBench;
beforeAll(async () => {
  bench = await startPipelineBench();
}, 60_000);
afterAll(async () => {
  await bench?.close();
});
afterEach(async () => {
  await bench.chain.rpc('evm_setAutomine', [true]);
  await bench.chain.rpc('evm_mine');
});

/** Launches one transaction of `work` through the launch step; returns its flight. */
async function launched(work: TestWork, state: PipelineState = initialPipelineState(opts)): Promise<Flight> {
  expect(await launchNext({ ...bench.deps, works: [work] }, opts, state)).toBe('launched');
  return state.flights.at(-1)!;
}
const look = async (flight: Flight, watch: Watch = bench.deps.watch) => (await watch.look([flight]))[0]!;
/** The sighting of `flight` once it is `state`. */
const seenAs = <S extends Sighting['state']>(flight: Flight, state: S, watch?: Watch) =>
  until(async () => {
    const sighting = await look(flight, watch);
    return sighting.state === state ? (sighting as Extract<Sighting, { state: S }>) : undefined;
  });

describe('a mined transaction', () => {
  it('finishes a mined transaction with its receipt; a reverted one keeps its block in the journal', async () => {
    const ok = testWork('attest', NOBODY, {});
    const flight = await launched(ok);
    const seen = await seenAs(flight, 'mined');
    expect(await settleFlight(bench.deps, flight, seen, Date.now())).toBe('left');
    expect(ok.finished).toMatchObject([{ journalId: flight.journalId, outcome: { status: 'success' } }]);

    // a call that reverts, signed with a gas limit of its own (an estimate would refuse it)
    const { db, sender } = bench.deps;
    const journalId = await recordIntent(db, 'revoke');
    const { fees } = await sender.prepare(NOBODY, '0x', 2n ** 64n);
    const nonce = await sender.nonceFrom(0);
    const signed = await sender.launch(journalId, {
      to: bench.chain.eas,
      data: '0xdeadbeef',
      nonce,
      gas: 100_000n,
      fees,
    });
    const failing = testWork('revoke', bench.chain.eas, {
      onFinish: (id) => recordFailed(db, id, 'reverted', new Date()),
    });
    const reverted = newFlight(signed, { work: failing, journalId, count: 1 }, Date.now());
    const mined = await seenAs(reverted, 'mined');
    expect(mined.receipt.status).toBe('reverted');
    expect(await settleFlight(bench.deps, reverted, mined, Date.now())).toBe('left');
    const [row] = await bench.sql.query<{ status: string; block_number: string; block_hash: string }>(
      `SELECT status, block_number::text, block_hash FROM relay_transactions WHERE id = $1::bigint`,
      [journalId],
    );
    expect(row).toEqual({
      status: 'failed',
      block_number: String(mined.receipt.blockNumber),
      block_hash: mined.receipt.blockHash,
    });
  });
});

describe('a transaction not mined yet', () => {
  it('keeps a pending one as the oldest unmined; one back from a block it left gets its bytes again if forgotten', async () => {
    await bench.chain.rpc('evm_setAutomine', [false]);
    const work = testWork('attest', NOBODY, {});
    const flight = await launched(work);
    const pending = await look(flight);
    expect(pending).toEqual({ state: 'pending' });
    expect(await settleFlight(bench.deps, flight, pending, Date.now())).toBe('unmined');
    expect(flight.seenMined).toBeUndefined();

    // it was seen in a block before (a reorg took it back) and the node forgot it
    flight.seenMined = true;
    await bench.chain.rpc('anvil_dropTransaction', [flight.hash]);
    expect(await bench.deps.sender.known(flight.hash)).toBe(false);
    expect(await settleFlight(bench.deps, flight, pending, Date.now())).toBe('unmined');
    expect(flight.seenMined).toBeUndefined();
    expect(await bench.deps.sender.known(flight.hash)).toBe(true);
    expect(work.finished).toEqual([]);
  });

  it('keeps one waiting for its confirmations (not stuck), marked as seen in a block', async () => {
    const work = testWork('attest', NOBODY, {});
    const flight = await launched(work);
    const seen = await seenAs(flight, 'confirming', createWatch(bench.client, bench.address, 3));
    expect(await settleFlight(bench.deps, flight, seen, Date.now())).toBe('stays');
    expect(flight.seenMined).toBe(true);
    expect(work.finished).toEqual([]);
  });
});

describe('a transaction whose nonce another took', () => {
  it('gives the items of a nonce taken by another back once LOST_GRACE_MS has passed', async () => {
    const work = testWork('attest', NOBODY, {});
    const flight = await launched(work);
    const now = Date.now();
    expect(await settleFlight(bench.deps, flight, { state: 'lost' }, now)).toBe('stays');
    expect(flight.lostSince).toBe(now);
    expect(await settleFlight(bench.deps, flight, { state: 'lost' }, now + LOST_GRACE_MS)).toBe('left');
    expect(work.finished).toEqual([{ journalId: flight.journalId, outcome: 'dropped' }]);
    // a sighting of anything else forgets when it was first seen lost
    const again = { ...flight, lostSince: now };
    await settleFlight(bench.deps, again, { state: 'pending' }, now);
    expect(again.lostSince).toBeUndefined();
  });
});

describe('everything in flight at once', () => {
  it('settles all in flight at once: the mined leave, the stuck oldest unmined one is re-signed with higher fees', async () => {
    const state = initialPipelineState({ ...opts, stuckAfterMs: 0 });
    const mined = testWork('attest', NOBODY, {});
    await launched(mined, state);
    await seenAs(state.flights[0]!, 'mined');
    await bench.chain.rpc('evm_setAutomine', [false]);
    const stuck = testWork('revoke', NOBODY, {});
    const flight = await launched(stuck, state);
    const firstHash = flight.hash;
    expect(await settle(bench.deps, { ...opts, stuckAfterMs: 0 }, state, Date.now())).toBe(true);
    expect(state.flights).toHaveLength(1);
    expect(state.flights[0]).toBe(flight);
    expect(state.head).toBe(flight.journalId);
    expect(mined.finished).toHaveLength(1);
    expect(flight.bumps).toBe(1);
    expect(flight.hashes).toEqual([firstHash, flight.hash]);
    expect(flight.hash).not.toBe(firstHash);
    // nothing left the pipeline this time
    expect(await settle(bench.deps, opts, state, Date.now())).toBe(false);
  });
});

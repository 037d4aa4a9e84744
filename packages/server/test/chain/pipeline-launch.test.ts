import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Flight } from '../../src/chain/flight.ts';
import {
  claimTurn,
  estimateBudget,
  gasTargetOf,
  launchNext,
  newFlight,
  partialWaits,
} from '../../src/chain/pipeline-launch.ts';
import { createPipeline } from '../../src/chain/pipeline.ts';
import { initialPipelineState, type PipelineState } from '../../src/chain/pipeline-state.ts';
import { NOBODY, startPipelineBench, testWork, type PipelineBench } from './pipeline-support.ts';

// The launch step of the relayer's pipeline (chain/pipeline-launch.ts): how big a transaction may be, which work goes
// next, and what a launch leaves behind, on a real anvil and a real journal.
const opts = { maxInFlight: 4, stuckAfterMs: 60_000, maxBumps: 3 };
const inFlight = (...gas: bigint[]) => gas.map((g) => ({ gas: g }) as Flight);

describe('the size of a transaction', () => {
  it('is RELAY_GAS_TARGET when set, else half the latest block, else the target decided before', () => {
    expect(gasTargetOf(5_000_000n, 30_000_000n, 1n)).toBe(5_000_000n);
    expect(gasTargetOf(undefined, 30_000_000n, 1n)).toBe(15_000_000n);
    expect(gasTargetOf(undefined, undefined, 7_000_000n)).toBe(7_000_000n);
    expect(gasTargetOf(undefined, undefined, undefined)).toBeUndefined();
  });

  it('leaves the estimate 98% of the target: the gas limit keeps 2% over it', () => {
    expect(estimateBudget(15_000_000n)).toBe(14_705_882n);
    expect((estimateBudget(15_000_000n)! * 102n) / 100n).toBeLessThanOrEqual(15_000_000n);
    expect(estimateBudget(undefined)).toBeUndefined();
  });

  it('waits for more items when the transactions in flight fill the next block, judged by their gas limits', () => {
    const state = {
      flights: inFlight(10_000_000n, 10_000_000n),
      blockGas: 30_000_000n,
      heldSince: undefined,
      holding: false,
    };
    const waits = partialWaits(state, 14_000_000n);
    expect(waits(5_000_000n)).toBe(false); // fits beside them
    expect(waits(10_000_001n)).toBe(true);
    expect(waits(12_600_000n)).toBe(false); // 90% of the budget never waits
    // the block gas limit is read when asked, as a later read of the node left it
    state.blockGas = 40_000_000n;
    expect(waits(10_000_001n)).toBe(false);
    const unknown = { flights: inFlight(1_000n), blockGas: undefined, heldSince: undefined, holding: false };
    expect(partialWaits(unknown, 14_000_000n)(1n)).toBe(false);
  });

  it('from idle, lingers a short one: the state holds from the first time it is asked until the linger is over', () => {
    const idle = { flights: [], blockGas: 30_000_000n, heldSince: undefined as number | undefined, holding: false };
    expect(partialWaits(idle, 14_000_000n, { lingerMs: 100, now: 5_000 })(1_000_000n)).toBe(true);
    expect(idle).toMatchObject({ heldSince: 5_000, holding: true });
    idle.holding = false;
    expect(partialWaits(idle, 14_000_000n, { lingerMs: 100, now: 5_099 })(1_000_000n)).toBe(true);
    expect(idle).toMatchObject({ heldSince: 5_000, holding: true }); // the linger runs from when it began
    idle.holding = false;
    expect(partialWaits(idle, 14_000_000n, { lingerMs: 100, now: 5_100 })(1_000_000n)).toBe(false);
    expect(idle.holding).toBe(false);
  });

  it('starts a sent transaction’s watch with its one hash and its stuck clock at once', () => {
    const work = testWork('attest', NOBODY, {});
    const signed = { to: NOBODY, data: '0x', nonce: 3, gas: 21_000n, fees: {}, hash: '0x01', raw: '0x02' } as never;
    expect(newFlight(signed, { work, journalId: '9', count: 4 }, 1_000)).toMatchObject({
      journalId: '9',
      work,
      nonce: 3,
      hashes: ['0x01'],
      items: 4,
      sentAt: 1_000,
      since: 1_000,
      bumps: 0,
    });
  });
});

// the launch step on a real chain and journal
let bench: PipelineBench;
let state: PipelineState;
beforeAll(async () => {
  bench = await startPipelineBench();
}, 60_000);
afterAll(async () => {
  await bench?.close();
});
const journal = (id: string) =>
  bench.sql.query<{ status: string; nonce: number | null; error: string | null; kind: string }>(
    `SELECT status, nonce, error, kind FROM relay_transactions WHERE id = $1::bigint`,
    [id],
  );

describe('a claim on a real journal', () => {
  it('gives the works turns: each claim goes to the next work with items waiting, and none waiting is idle', async () => {
    const a = testWork('attest', NOBODY, { waiting: 2 });
    const b = testWork('revoke', NOBODY, { waiting: 0 });
    const anchor = testWork('anchor', NOBODY, { waiting: 1 });
    const deps = { ...bench.deps, works: [a, b, anchor] };
    state = initialPipelineState({ ...opts, gasTarget: 3_000_000n });
    const first = await claimTurn(deps, state);
    expect(first).toMatchObject({ work: a, count: 1 });
    expect(state.cursor).toBe(1);
    // b has nothing: the turn passes to the anchor work
    expect(await claimTurn(deps, state)).toMatchObject({ work: anchor });
    expect(state.cursor).toBe(0);
    expect(await claimTurn(deps, state)).toMatchObject({ work: a });
    expect(await claimTurn(deps, state)).toBeUndefined();
    expect(state.cursor).toBe(1);
    // each claim was offered the estimate budget of the gas target
    expect(new Set([...a.budgets, ...b.budgets, ...anchor.budgets])).toEqual(new Set([estimateBudget(3_000_000n)]));
    expect(await journal(first!.journalId)).toEqual([{ status: 'intent', nonce: null, error: null, kind: 'attest' }]);
  });

  it('declines a short transaction while a full one’s worth is in flight and the block size is unknown', async () => {
    const short = testWork('attest', NOBODY, { estimate: 100_000n });
    state = initialPipelineState({ ...opts, gasTarget: 1_020_000n });
    state.flights.push(...inFlight(1_000_000n));
    expect(await claimTurn({ ...bench.deps, works: [short] }, state)).toBeUndefined();
    expect(short.opened).toEqual([false]);
    expect(short.waiting).toBe(1);
    expect(state.cursor).toBe(0);
  });

  it('from idle, a short one lingers (nothing tied to the journal), then goes once the linger is over', async () => {
    const short = testWork('attest', NOBODY, { estimate: 100_000n });
    const deps = { ...bench.deps, works: [short] };
    state = initialPipelineState({ ...opts, gasTarget: 1_020_000n, lingerMs: 60_000 });
    expect(await claimTurn(deps, state, 60_000)).toBeUndefined();
    expect([short.opened, short.waiting, state.holding]).toEqual([[false], 1, true]);
    state.heldSince! -= 60_000;
    state.holding = false;
    expect(await claimTurn(deps, state, 60_000)).toMatchObject({ work: short, count: 1 });
    expect(state.holding).toBe(false);
  });
});

describe('a launch on a real chain', () => {
  it('sends at the node’s nonce, then at the ones after; the gas target is half the latest block', async () => {
    const work = testWork('attest', NOBODY, { waiting: 2 });
    const deps = { ...bench.deps, works: [work] };
    state = initialPipelineState(opts);
    expect(await launchNext(deps, opts, state)).toBe('launched');
    expect(await launchNext(deps, opts, state)).toBe('launched');
    expect(await launchNext(deps, opts, state)).toBe('idle');
    const block = await bench.client.getBlock();
    expect(state.blockGas).toBe(block.gasLimit);
    expect(state.gasTarget).toBe(block.gasLimit / 2n);
    expect(state.flights.map((f) => f.nonce)).toEqual([0, 1]);
    expect(state.nextNonce).toBe(2);
    const [sent] = await journal(state.flights[0]!.journalId);
    expect(sent).toMatchObject({ status: 'sent', nonce: 0 });
  });

  it('from idle, waits out the linger before it sends a short transaction, then finishes it', async () => {
    const work = testWork('attest', NOBODY, { waiting: 1 });
    const lingering = { ...opts, lingerMs: 400 };
    const started = Date.now();
    await createPipeline({ ...bench.deps, works: [work] }, lingering).run();
    expect(work.finished).toHaveLength(1);
    const [sent] = await bench.sql.query<{ sentAt: Date }>(
      `SELECT sent_at AS "sentAt" FROM relay_transactions WHERE id = $1::bigint`,
      [work.finished[0]!.journalId],
    );
    expect(sent!.sentAt.getTime() - started).toBeGreaterThanOrEqual(400 - 5); // the timestamp keeps milliseconds
  });

  it('fails a transaction that cannot be prepared (it would revert): its items, its journal entry; no nonce taken', async () => {
    const reverting = testWork('revoke', bench.chain.eas, { data: '0xdeadbeef' });
    const nextNonce = state.nextNonce;
    const flights = state.flights.length;
    expect(await launchNext({ ...bench.deps, works: [reverting] }, opts, state)).toBe('failed');
    const [{ journalId, reason }] = reverting.failed as [{ journalId: string; reason: string }];
    expect(reason).toMatch(/could not prepare the transaction/);
    expect(reverting.notSent).toEqual([journalId]);
    expect(await journal(journalId)).toEqual([
      { status: 'failed', nonce: null, error: reason.slice(0, 500), kind: 'revoke' },
    ]);
    expect([state.nextNonce, state.flights.length]).toEqual([nextNonce, flights]);
  });
});

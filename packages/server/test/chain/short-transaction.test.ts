import { describe, expect, it } from 'vitest';
import { lingerWaits, shortTransactionWaits } from '../../src/chain/flight.ts';

// a block of 30 M gas: a transaction's estimate may use 14.7 M (half the block, less 2 %), and its gas limit (what it
// holds of a block while in flight) is the estimate and its 2 %, so two full ones fill the block
const blockGas = 30_000_000n;
const budget = 14_700_000n;
const full = 14_990_000n;
const waits = (estimated: bigint, queued: bigint) => shortTransactionWaits({ estimated, budget, queued, blockGas });

describe('whether a short transaction waits for more items', () => {
  it('goes at once while less than a full transaction is in flight', () => {
    expect(waits(1_000_000n, 0n)).toBe(false);
    expect(waits(1_000_000n, budget - 1n)).toBe(false);
  });

  it('goes at once beside one full transaction: the next block still has room for it (the end of a burst)', () => {
    expect(waits(6_000_000n, full)).toBe(false);
    expect(waits(blockGas - full, full)).toBe(false);
  });

  it('waits when what is in flight fills the next block: it would take a full one’s room in the block after', () => {
    expect(waits(6_000_000n, 2n * full)).toBe(true);
    // the edge: the room left beside two full ones, and one gas more
    expect(waits(blockGas - 2n * full, 2n * full)).toBe(false);
    expect(waits(blockGas - 2n * full + 1n, 2n * full)).toBe(true);
  });

  it('never holds back a transaction of 90 % of the budget or more', () => {
    expect(waits((budget * 9n) / 10n, 2n * full)).toBe(false);
    expect(waits((budget * 9n) / 10n - 1n, 2n * full)).toBe(true);
  });

  it('with no block gas limit known, waits whenever a full transaction is in flight', () => {
    const unknownBlock = (estimated: bigint, queued: bigint) =>
      shortTransactionWaits({ estimated, budget, queued, blockGas: undefined });
    expect(unknownBlock(1_000_000n, full)).toBe(true);
    expect(unknownBlock(1_000_000n, budget - 1n)).toBe(false);
  });

  it('with no gas budget (RELAY_GAS_TARGET unknown and no block read yet), never waits', () => {
    expect(shortTransactionWaits({ estimated: 1n, budget: undefined, queued: 10n ** 9n, blockGas })).toBe(false);
  });
});

describe('whether a short transaction from idle lingers for more items', () => {
  const lingers = (over: Partial<Parameters<typeof lingerWaits>[0]>) =>
    lingerWaits({ estimated: 1_000_000n, budget, inFlight: 0, heldSince: 1_000, now: 1_000, lingerMs: 100, ...over });

  it('lingers from when its items were first found waiting until the linger is over, to the millisecond', () => {
    expect(lingers({})).toBe(true);
    expect(lingers({ now: 1_099 })).toBe(true);
    expect(lingers({ now: 1_100 })).toBe(false);
  });

  it('never while a transaction is in flight: then the room in the next block decides', () => {
    expect(lingers({ inFlight: 1 })).toBe(false);
  });

  it('never holds back a transaction of 90 % of the budget or more: a burst’s first full one goes at once', () => {
    expect(lingers({ estimated: (budget * 9n) / 10n })).toBe(false);
    expect(lingers({ estimated: (budget * 9n) / 10n - 1n })).toBe(true);
  });

  it('never when the linger is 0 (RELAY_LINGER=0ms) or no gas budget is known yet', () => {
    expect(lingers({ lingerMs: 0 })).toBe(false);
    expect(lingers({ lingerMs: undefined })).toBe(false);
    expect(lingers({ budget: undefined })).toBe(false);
  });
});

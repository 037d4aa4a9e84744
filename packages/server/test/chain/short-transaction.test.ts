import { describe, expect, it } from 'vitest';
import { shortTransactionWaits } from '../../src/chain/pipeline.ts';

// a block of 30 M gas, two transactions of at most 14.7 M (half the block, less the gas limit's 2 %) fill it
const blockGas = 30_000_000n;
const budget = 14_700_000n;
const full = 14_690_000n;
const waits = (estimated: bigint, queued: bigint, block: bigint | undefined = blockGas) =>
  shortTransactionWaits({ estimated, budget, queued, blockGas: block });

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
    expect(waits(blockGas - full + 1n, full)).toBe(true);
  });

  it('never holds back a transaction of 90 % of the budget or more', () => {
    expect(waits((budget * 9n) / 10n, 2n * full)).toBe(false);
    expect(waits((budget * 9n) / 10n - 1n, 2n * full)).toBe(true);
  });

  it('with no block gas limit known, waits whenever a full transaction is in flight', () => {
    expect(waits(1_000_000n, full, undefined)).toBe(true);
    expect(waits(1_000_000n, budget - 1n, undefined)).toBe(false);
  });

  it('with no gas budget (RELAY_GAS_TARGET unknown and no block read yet), never waits', () => {
    expect(shortTransactionWaits({ estimated: 1n, budget: undefined, queued: 10n ** 9n, blockGas })).toBe(false);
  });
});

import type { PublicClient } from 'viem';

/** EIP-1559 fees of one transaction. */
export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * The node's fees now, capped at `capWei`, and the latest block's gas limit. The max fee is twice the base fee plus
 * the tip: while our own transactions fill blocks the base fee rises 12.5% a block, and this leaves room for about
 * six such blocks before a transaction in flight needs a bump (it pays base fee + tip either way).
 */
export async function currentFees(client: PublicClient, capWei: bigint): Promise<Fees & { blockGasLimit: bigint }> {
  const [block, tip] = await Promise.all([
    client.getBlock({ blockTag: 'latest' }),
    client.estimateMaxPriorityFeePerGas().catch(() => 1_000_000_000n),
  ]);
  const maxFeePerGas = min(capWei, (block.baseFeePerGas ?? 0n) * 2n + tip);
  return { maxFeePerGas, maxPriorityFeePerGas: min(tip, maxFeePerGas), blockGasLimit: block.gasLimit };
}

/**
 * The fees that replace a stuck transaction: +25% on both (a node takes a replacement from +10%), or the node's
 * current fees when they are higher; undefined when the cap leaves no room for a replacement.
 */
export function bumpedFees(previous: Fees, now: Fees | undefined, capWei: bigint): Fees | undefined {
  const maxFeePerGas = min(capWei, max((previous.maxFeePerGas * 125n) / 100n + 1n, now?.maxFeePerGas ?? 0n));
  const tip = max((previous.maxPriorityFeePerGas * 125n) / 100n + 1n, now?.maxPriorityFeePerGas ?? 0n);
  const maxPriorityFeePerGas = min(tip, maxFeePerGas);
  const enough = (next: bigint, before: bigint) => next * 100n >= before * 110n;
  if (!enough(maxFeePerGas, previous.maxFeePerGas) || !enough(maxPriorityFeePerGas, previous.maxPriorityFeePerGas))
    return undefined;
  return { maxFeePerGas, maxPriorityFeePerGas };
}

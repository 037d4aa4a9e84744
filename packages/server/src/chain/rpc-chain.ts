import { defineChain, type Chain } from 'viem';

export const ANVIL_CHAIN_ID = 31_337;

/**
 * A viem chain for an RPC we are given. Defined here rather than taken from `viem/chains`: that module defines
 * every chain viem knows, and importing it for one entry would keep all of them in memory.
 */
export function rpcChain(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: `chain-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

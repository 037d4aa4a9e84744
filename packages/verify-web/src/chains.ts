/** Names and public explorers of the chains EAS is deployed on; the dev chain (31337) has no explorer. */
const CHAINS: Record<number, { name: string; explorer?: string; easscan?: string }> = {
  1: { name: 'Ethereum', explorer: 'https://etherscan.io', easscan: 'https://easscan.org' },
  10: { name: 'OP Mainnet', explorer: 'https://optimistic.etherscan.io', easscan: 'https://optimism.easscan.org' },
  137: { name: 'Polygon', explorer: 'https://polygonscan.com', easscan: 'https://polygon.easscan.org' },
  8453: { name: 'Base', explorer: 'https://basescan.org', easscan: 'https://base.easscan.org' },
  42161: { name: 'Arbitrum One', explorer: 'https://arbiscan.io', easscan: 'https://arbitrum.easscan.org' },
  59144: { name: 'Linea', explorer: 'https://lineascan.build', easscan: 'https://linea.easscan.org' },
  534352: { name: 'Scroll', explorer: 'https://scrollscan.com', easscan: 'https://scroll.easscan.org' },
  11155111: { name: 'Sepolia', explorer: 'https://sepolia.etherscan.io', easscan: 'https://sepolia.easscan.org' },
  11155420: {
    name: 'OP Sepolia',
    explorer: 'https://sepolia-optimism.etherscan.io',
    easscan: 'https://optimism-sepolia.easscan.org',
  },
  84532: {
    name: 'Base Sepolia',
    explorer: 'https://sepolia.basescan.org',
    easscan: 'https://base-sepolia.easscan.org',
  },
  31337: { name: 'Local development chain (anvil)' },
};

export function chainName(chainId: number): string {
  return CHAINS[chainId]?.name ?? `Chain ${chainId}`;
}

/** A link to a transaction on the chain's explorer, when it has one. */
export function txLink(chainId: number, txHash: string): string | undefined {
  const explorer = CHAINS[chainId]?.explorer;
  return explorer ? `${explorer}/tx/${txHash}` : undefined;
}

export function addressLink(chainId: number, address: string): string | undefined {
  const explorer = CHAINS[chainId]?.explorer;
  return explorer ? `${explorer}/address/${address}` : undefined;
}

/** The on-chain attestation on EAS's own explorer, when the chain has one. */
export function attestationLink(chainId: number, uid: string): string | undefined {
  const easscan = CHAINS[chainId]?.easscan;
  return easscan ? `${easscan}/attestation/view/${uid}` : undefined;
}

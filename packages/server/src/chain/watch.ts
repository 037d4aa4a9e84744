import type { Hex, PublicClient, TransactionReceipt } from 'viem';

/** What the chain says of one transaction in flight. */
export type Sighting =
  | { state: 'pending' }
  | { state: 'mined'; receipt: TransactionReceipt }
  /** Mined, not yet with its confirmations. */
  | { state: 'confirming' }
  /** Its nonce is used, by none of its hashes (yet: a receipt may lag the nonce a moment). */
  | { state: 'lost' };

/**
 * Looks at the transactions in flight with one call when none is mined: the account's mined-nonce count says which
 * nonces are used; only those get their receipts looked up (each hash ever sent for the nonce), and a receipt counts
 * once it has `confirmations` blocks.
 */
export function createWatch(client: PublicClient, address: Hex, confirmations: number) {
  async function receiptOf(hashes: Hex[]): Promise<TransactionReceipt | undefined> {
    for (const hash of hashes) {
      const receipt = await client.getTransactionReceipt({ hash }).catch(() => undefined);
      if (receipt) return receipt;
    }
    return undefined;
  }

  return {
    /** One sighting per transaction, in the order given. */
    async look(flights: Array<{ nonce: number; hashes: Hex[] }>): Promise<Sighting[]> {
      const used = await client.getTransactionCount({ address, blockTag: 'latest' });
      let latest: bigint | undefined;
      const sightings: Sighting[] = [];
      for (const flight of flights) {
        if (flight.nonce >= used) {
          sightings.push({ state: 'pending' });
          continue;
        }
        const receipt = await receiptOf(flight.hashes);
        if (!receipt) {
          sightings.push({ state: 'lost' });
          continue;
        }
        if (confirmations > 1) {
          latest ??= await client.getBlockNumber({ cacheTime: 0 });
          if (latest - receipt.blockNumber + 1n < BigInt(confirmations)) {
            sightings.push({ state: 'confirming' });
            continue;
          }
        }
        sightings.push({ state: 'mined', receipt });
      }
      return sightings;
    },
  };
}

export type Watch = ReturnType<typeof createWatch>;

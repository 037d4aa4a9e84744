import { TransactionReceiptNotFoundError, type Hex, type PublicClient, type TransactionReceipt } from 'viem';

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

    /** The hash of the block a transaction is in now (undefined: in none; throws when the node cannot say). */
    async blockOf(hash: Hex): Promise<Hex | undefined> {
      try {
        return (await client.getTransactionReceipt({ hash })).blockHash;
      } catch (error) {
        if (error instanceof TransactionReceiptNotFoundError) return undefined;
        throw error;
      }
    },

    /** The number of the chain's latest block. */
    head: (): Promise<bigint> => client.getBlockNumber({ cacheTime: 0 }),

    /**
     * Which of these mined blocks (newest first) are no longer the chain's at their height. A reorg replaces a run
     * of the newest blocks, so the first one still in place vouches for every older one: one call when none left.
     * An error stops the look there (a node that cannot say is no proof of a reorg).
     */
    async vanished<T extends { blockNumber: bigint; blockHash: Hex }>(mined: T[], head: bigint): Promise<T[]> {
      const gone: T[] = [];
      const heights = [...new Set(mined.map((m) => m.blockNumber))];
      for (const height of heights) {
        const here = mined.filter((m) => m.blockNumber === height);
        const hash =
          height > head
            ? undefined
            : await client.getBlock({ blockNumber: height }).then(
                (block) => block.hash?.toLowerCase(),
                () => null,
              );
        if (hash === null) break;
        const left = here.filter((m) => m.blockHash.toLowerCase() !== hash);
        gone.push(...left);
        if (left.length === 0) break;
      }
      return gone;
    },
  };
}

export type Watch = ReturnType<typeof createWatch>;

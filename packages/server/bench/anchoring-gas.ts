// Gas per anchored attestation (one EAS.timestamp of the Merkle root of N uids) next to timestamping each uid with
// EAS.multiTimestamp (in transactions that fit a block), both on one fresh dev chain in the same run.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, encodeFunctionData, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { buildAnchorTree } from '../src/anchoring/tree.ts';
import { timestampCalldata } from '../src/anchoring/relay-work.ts';
import { EAS_ARTIFACT } from '../src/chain/eas-artifacts.ts';
import { startDevChain } from '../src/chain/dev-chain.ts';
import { rpcChain } from '../src/chain/rpc-chain.ts';

const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export interface AnchorGasFigure {
  attestations: number;
  /** The one EAS.timestamp(root) transaction. */
  anchorGas: bigint;
  /** Every uid timestamped with EAS.multiTimestamp, summed over the transactions it takes. */
  multiGas: bigint;
  multiTransactions: number;
}

export interface AnchorGas {
  blockGasLimit: bigint;
  /** uids per multiTimestamp transaction: as many as fit 95% of a block. */
  multiChunk: number;
  figures: AnchorGasFigure[];
}

const uids = (count: number): Hex[] => Array.from({ length: count }, (): Hex => `0x${randomBytes(32).toString('hex')}`);

export async function measureAnchorGas(counts: number[]): Promise<AnchorGas> {
  const dir = await mkdtemp(join(tmpdir(), 'anchor-gas-'));
  const chain = await startDevChain({ dataDir: dir, deployerKey: KEY });
  try {
    const transport = http(chain.rpcUrl);
    const foundry = rpcChain(chain.chainId, chain.rpcUrl);
    const publicClient = createPublicClient({ chain: foundry, transport });
    const wallet = createWalletClient({ chain: foundry, transport, account: privateKeyToAccount(KEY) });
    const send = async (data: Hex) =>
      (
        await publicClient.waitForTransactionReceipt({
          hash: await wallet.sendTransaction({ to: chain.eas, data }),
          pollingInterval: 20,
        })
      ).gasUsed;
    const multi = (data: Hex[]) =>
      encodeFunctionData({ abi: EAS_ARTIFACT.abi, functionName: 'multiTimestamp', args: [data] });

    const { gasLimit: blockGasLimit } = await publicClient.getBlock();
    // a multiTimestamp's gas is linear in its uids: two sizes give the slope and the base
    const [of100, of200] = [await send(multi(uids(100))), await send(multi(uids(200)))];
    const perUid = (of200 - of100) / 100n;
    const base = of100 - 100n * perUid;
    const multiChunk = Number(((blockGasLimit * 95n) / 100n - base) / perUid);

    const figures: AnchorGasFigure[] = [];
    for (const count of counts) {
      const tree = await buildAnchorTree(uids(count));
      const anchorGas = await send(timestampCalldata(tree.root));
      let multiGas = 0n;
      let multiTransactions = 0;
      for (let sent = 0; sent < count; sent += multiChunk) {
        const chunk = Math.min(multiChunk, count - sent);
        multiGas += await send(multi(uids(chunk)));
        multiTransactions++;
      }
      figures.push({ attestations: count, anchorGas, multiGas, multiTransactions });
    }
    return { blockGasLimit, multiChunk, figures };
  } finally {
    await chain.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await measureAnchorGas([100, 1_000]));

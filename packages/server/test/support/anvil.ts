import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http, parseAbiItem, type Hex } from 'viem';
import { startDevChain, type DevChain } from '../../src/chain/dev-chain.ts';
import { waitFor } from './wait.ts';

const ANVIL_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const ATTESTED = parseAbiItem(
  'event Attested(address indexed recipient, address indexed attester, bytes32 uid, bytes32 indexed schemaUID)',
);

/**
 * An anvil of the test's own with EAS deployed, for tests that steer mining (automine off, blocks on demand, a base
 * fee set for the next block, a transaction dropped from the mempool), which the run's shared anvil must not see.
 */
export interface PrivateChain extends DevChain {
  /** One JSON-RPC call; throws the node's error. */
  rpc(method: string, params?: unknown[]): Promise<unknown>;
  /** The uids of every `Attested` event EAS emitted for this attester, in chain order. */
  attestedBy(attester: string): Promise<Hex[]>;
  /** Stops anvil and removes its folder. */
  close(): Promise<void>;
}

export async function startPrivateChain(opts: { blockTimeSeconds?: number } = {}): Promise<PrivateChain> {
  const dir = await mkdtemp(join(tmpdir(), 'private-chain-'));
  const chain = await startDevChain({ dataDir: dir, deployerKey: ANVIL_KEY, ...opts });
  const client = createPublicClient({ transport: http(chain.rpcUrl) });
  let id = 0;
  return {
    ...chain,
    async rpc(method, params = []) {
      const res = await fetch(chain.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      });
      const body = (await res.json()) as { result?: unknown; error?: { message: string } };
      if (body.error) throw new Error(`${method}: ${body.error.message}`);
      return body.result;
    },
    async attestedBy(attester) {
      const logs = await client.getLogs({
        address: chain.eas,
        event: ATTESTED,
        args: { attester: attester as Hex },
        fromBlock: 0n,
        toBlock: 'latest',
      });
      return logs.map((log) => log.args.uid!);
    },
    async close() {
      await chain.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `read` until it gives a value (every 50 ms, `timeoutMs` at most): support/wait.ts's waitFor. */
export async function until<T>(read: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  return (await waitFor(read, { timeout: timeoutMs })) as T;
}

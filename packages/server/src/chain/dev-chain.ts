import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createPublicClient, createWalletClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { claimDevChainDir } from './dev-chain-lock.ts';
import { deployEas } from './deploy-eas.ts';
import { ensureSchemaRegistered } from './register-schema.ts';
import { ANVIL_CHAIN_ID, rpcChain } from './rpc-chain.ts';
import { spawnInOwnGroup } from '../system/children.ts';
import { freePort } from '../system/ports.ts';

export interface DevChain {
  rpcUrl: string;
  chainId: number;
  eas: Hex;
  schemaRegistry: Hex;
  stop(): Promise<void>;
}

const require = createRequire(import.meta.url);

/** The anvil binary of @foundry-rs/anvil's platform package (its postinstall is not needed). */
function anvilBinary(): string {
  const wrapper = createRequire(require.resolve('@foundry-rs/anvil/package.json'));
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return join(dirname(wrapper.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`)), 'bin', 'anvil');
}

async function waitForRpc(rpcUrl: string, child: ChildProcess, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`anvil exited with code ${child.exitCode}`);
    try {
      const res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('anvil did not answer in time');
}

/**
 * A local chain for development and tests: anvil on a free loopback port with its state in `dataDir` (loaded at
 * the next start), EAS and SchemaRegistry deployed from eas-contracts' artifacts once (their addresses kept in
 * `dataDir/chain.json`) and our schema registered once, stopped with the service.
 */
export async function startDevChain(opts: {
  dataDir: string;
  deployerKey: Hex;
  blockTimeSeconds?: number;
  log?: (line: string) => void;
}): Promise<DevChain> {
  mkdirSync(opts.dataDir, { recursive: true });
  const statePath = join(opts.dataDir, 'anvil-state.json');
  const deploymentPath = join(opts.dataDir, 'chain.json');
  const port = await freePort();
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--state',
    statePath,
    '--state-interval',
    '2',
    '--silent',
  ];
  if (opts.blockTimeSeconds) args.push('--block-time', String(opts.blockTimeSeconds));
  const binary = anvilBinary();
  const release = claimDevChainDir(opts.dataDir);
  // its own process group: a terminal's Ctrl-C reaches the service, which stops anvil after its requests drained
  const child = spawnInOwnGroup(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] }, 'SIGTERM');
  child.stderr!.on('data', (chunk: Buffer) => opts.log?.(chunk.toString().trim()));
  // the claim ends when anvil has written its state for the last time
  child.once('exit', release);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM'); // anvil writes its state to --state on the way out
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    });
  try {
    const rpcUrl = `http://127.0.0.1:${port}`;
    await waitForRpc(rpcUrl, child);
    const transport = http(rpcUrl);
    const chain = rpcChain(ANVIL_CHAIN_ID, rpcUrl);
    const publicClient = createPublicClient({ chain, transport });
    const wallet = createWalletClient({ chain, transport, account: privateKeyToAccount(opts.deployerKey) });

    const saved = existsSync(deploymentPath)
      ? (JSON.parse(readFileSync(deploymentPath, 'utf8')) as { eas: Hex; schemaRegistry: Hex })
      : undefined;
    const deployed =
      saved &&
      (await publicClient.getCode({ address: saved.eas })) &&
      (await publicClient.getCode({ address: saved.schemaRegistry }));
    let addresses = saved;
    if (!deployed) {
      addresses = await deployEas(publicClient, wallet);
      writeFileSync(deploymentPath, JSON.stringify(addresses, null, 2));
      opts.log?.(`deployed SchemaRegistry at ${addresses.schemaRegistry} and EAS at ${addresses.eas}`);
    }
    await ensureSchemaRegistered(publicClient, wallet, addresses!.schemaRegistry);
    return { rpcUrl, chainId: ANVIL_CHAIN_ID, eas: addresses!.eas, schemaRegistry: addresses!.schemaRegistry, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

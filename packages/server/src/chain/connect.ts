import { join } from 'node:path';
import { createPublicClient, createWalletClient, http, type Hex, type PublicClient, type WalletClient } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Config } from '../config.ts';
import { ConfigError } from '../config.ts';
import { EAS_ARTIFACT, knownDeployment } from './eas-artifacts.ts';
import { startDevChain } from './dev-chain.ts';
import { requireOptional } from '../system/optional.ts';
import { rpcChain } from './rpc-chain.ts';
import { ensureSchemaRegistered } from './register-schema.ts';

/** Everything the service knows of its chain: where, which contracts, and the one relayer/attester account. */
export interface Chain {
  rpcUrl: string;
  chainId: number;
  eas: Hex;
  schemaRegistry: Hex;
  /** EAS `version()`: the EIP-712 domain version of off-chain attestations. */
  easVersion: string;
  account: PrivateKeyAccount;
  publicClient: PublicClient;
  walletClient: WalletClient;
  /** True for the embedded anvil. */
  dev: boolean;
  stop(): Promise<void>;
}

function clients(rpcUrl: string, chainId: number, key: Hex) {
  const chain = rpcChain(chainId, rpcUrl);
  const transport = http(rpcUrl, { timeout: 10_000, retryCount: 0 });
  const account = privateKeyToAccount(key);
  return {
    account,
    publicClient: createPublicClient({ chain, transport, pollingInterval: 250 }) as PublicClient,
    walletClient: createWalletClient({ chain, transport, account }),
  };
}

/**
 * The chain of this service: the configured RPC with EAS from eas-contracts' deployments (or the configured
 * addresses), or, without CHAIN_RPC_URL, an embedded anvil in DATA_DIR/chain with EAS deployed. Registers our
 * schema once. Refuses to start on a chain with no known EAS and none configured.
 */
export async function openChain(config: Config, log: (line: string) => void): Promise<Chain> {
  const key = config.chain.relayerPrivateKey;
  if (!config.chain.rpcUrl) {
    requireOptional('@foundry-rs/anvil', 'CHAIN_RPC_URL', 'the embedded dev chain');
    const dev = await startDevChain({ dataDir: join(config.dataDir, 'chain'), deployerKey: key, log });
    const c = clients(dev.rpcUrl, dev.chainId, key);
    return {
      ...c,
      rpcUrl: dev.rpcUrl,
      chainId: dev.chainId,
      eas: dev.eas,
      schemaRegistry: dev.schemaRegistry,
      easVersion: await easVersion(c.publicClient, dev.eas),
      dev: true,
      stop: dev.stop,
    };
  }
  const rpcUrl = config.chain.rpcUrl;
  const probe = createPublicClient({ transport: http(rpcUrl, { timeout: 10_000, retryCount: 2 }) });
  const chainId = await probe.getChainId().catch(() => {
    throw new ConfigError(`invalid configuration: CHAIN_RPC_URL does not answer eth_chainId`);
  });
  const known = knownDeployment(chainId);
  const eas = config.chain.easAddress ?? known?.eas;
  const schemaRegistry = config.chain.schemaRegistryAddress ?? known?.schemaRegistry;
  if (!eas || !schemaRegistry) {
    throw new ConfigError(
      `invalid configuration: chain ${chainId} has no known EAS deployment; set EAS_ADDRESS and SCHEMA_REGISTRY_ADDRESS`,
    );
  }
  const c = clients(rpcUrl, chainId, key);
  await ensureSchemaRegistered(c.publicClient, c.walletClient, schemaRegistry);
  return {
    ...c,
    rpcUrl,
    chainId,
    eas,
    schemaRegistry,
    easVersion: await easVersion(c.publicClient, eas),
    dev: false,
    stop: async () => {},
  };
}

async function easVersion(publicClient: PublicClient, eas: Hex): Promise<string> {
  return (await publicClient.readContract({ address: eas, abi: EAS_ARTIFACT.abi, functionName: 'version' })) as string;
}

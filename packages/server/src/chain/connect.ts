import { join } from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Config } from '../config.ts';
import { ConfigError } from '../config.ts';
import type { Logger } from '../log.ts';
import { EAS_ARTIFACT, knownDeployment } from './eas-artifacts.ts';
import { startDevChain } from './dev-chain.ts';
import { refuseWellKnownSigner } from './dev-keys.ts';
import { requireOptional } from '../system/optional.ts';
import { rpcChain } from './rpc-chain.ts';
import { ensureSchemaRegistered } from './register-schema.ts';
import { remoteAccount } from './signer.ts';
import { failoverTransport, type FailoverTransport } from './transport.ts';

/** Everything the service knows of its chain: where, which contracts, and the one relayer/attester account. */
export interface Chain {
  /** The preferred RPC endpoint (the first of CHAIN_RPC_URL, or the embedded anvil's). */
  rpcUrl: string;
  chainId: number;
  eas: Hex;
  schemaRegistry: Hex;
  /** EAS `version()`: the EIP-712 domain version of off-chain attestations. */
  easVersion: string;
  /** The relayer: a key in this process, or a signer's account (chain/signer.ts) that signs remotely. */
  account: LocalAccount;
  /** `key`: RELAYER_PRIVATE_KEY (or the dev default) is in this process; `remote`: RELAYER_SIGNER_URL holds it. */
  signing: 'key' | 'remote';
  publicClient: PublicClient;
  walletClient: WalletClient;
  /** True for the embedded anvil. */
  dev: boolean;
  /** Each RPC endpoint: in use (`ok`), not answered yet, or on another chain; and its share of healthy samples. */
  endpoints(): Array<{ endpoint: string; state: string; healthy: number }>;
  stop(): Promise<void>;
}

/** The relayer's account: the configured key, or the signer's; refused when well known off a development chain. */
async function relayerAccount(
  config: Config,
  chainId: number,
): Promise<{ account: LocalAccount; signing: 'key' | 'remote' }> {
  const { signer } = config.chain;
  if (signer.kind === 'remote') {
    const account = await remoteAccount(signer.url, signer.address);
    refuseWellKnownSigner(chainId, account.address, 'RELAYER_ADDRESS');
    return { account, signing: 'remote' };
  }
  const account = privateKeyToAccount(config.chain.relayerPrivateKey);
  refuseWellKnownSigner(chainId, account.address, signer.given ? 'RELAYER_PRIVATE_KEY' : 'default');
  if (signer.address && signer.address.toLowerCase() !== account.address.toLowerCase())
    throw new ConfigError('invalid configuration: RELAYER_ADDRESS is not the address of RELAYER_PRIVATE_KEY');
  return { account, signing: 'key' };
}

function endpointsOf(rpcUrls: string[], log: Logger) {
  return failoverTransport(rpcUrls, {
    log: (level, fields, message) => log[level]({ component: 'chain', ...fields }, message),
  });
}

function clients(failover: FailoverTransport, rpcUrl: string, chainId: number, account: LocalAccount) {
  const chain = rpcChain(chainId, rpcUrl);
  const transport = failover.transport;
  return {
    publicClient: createPublicClient({ chain, transport, pollingInterval: 250 }) as PublicClient,
    walletClient: createWalletClient({ chain, transport, account }),
  };
}

/**
 * The chain of this service: the configured RPC endpoints (one chain id, checked) with EAS from eas-contracts'
 * deployments (or the configured addresses), or, without CHAIN_RPC_URL, an embedded anvil in DATA_DIR/chain with EAS
 * deployed. Registers our schema once. Refuses to start on a chain with no known EAS and none configured, and with a
 * public development key anywhere but a development chain (chain/dev-keys.ts).
 */
export async function openChain(config: Config, log: Logger): Promise<Chain> {
  if (config.chain.rpcUrls.length === 0) {
    requireOptional('@foundry-rs/anvil', 'CHAIN_RPC_URL', 'the embedded dev chain');
    const dev = await startDevChain({
      dataDir: join(config.dataDir, 'chain'),
      deployerKey: config.chain.relayerPrivateKey,
      log: (line) => log.info({ component: 'chain' }, line),
    });
    const failover = endpointsOf([dev.rpcUrl], log);
    try {
      await failover.open(dev.chainId);
      const { account, signing } = await relayerAccount(config, dev.chainId);
      const c = clients(failover, dev.rpcUrl, dev.chainId, account);
      return {
        ...c,
        account,
        signing,
        rpcUrl: dev.rpcUrl,
        chainId: dev.chainId,
        eas: dev.eas,
        schemaRegistry: dev.schemaRegistry,
        easVersion: await easVersion(c.publicClient, dev.eas),
        dev: true,
        endpoints: failover.status,
        stop: async () => (failover.stop(), await dev.stop()),
      };
    } catch (error) {
      failover.stop();
      await dev.stop();
      throw error;
    }
  }
  const { rpcUrls } = config.chain;
  const failover = endpointsOf(rpcUrls, log);
  try {
    return await openRemote(config, failover, await failover.open(config.chain.chainId));
  } catch (error) {
    failover.stop();
    throw error;
  }
}

async function openRemote(config: Config, failover: FailoverTransport, chainId: number): Promise<Chain> {
  const { rpcUrls } = config.chain;
  const known = knownDeployment(chainId);
  const eas = config.chain.easAddress ?? known?.eas;
  const schemaRegistry = config.chain.schemaRegistryAddress ?? known?.schemaRegistry;
  if (!eas || !schemaRegistry) {
    throw new ConfigError(
      `invalid configuration: chain ${chainId} has no known EAS deployment; set EAS_ADDRESS and SCHEMA_REGISTRY_ADDRESS`,
    );
  }
  const { account, signing } = await relayerAccount(config, chainId);
  const c = clients(failover, rpcUrls[0]!, chainId, account);
  await ensureSchemaRegistered(c.publicClient, c.walletClient, schemaRegistry);
  return {
    ...c,
    account,
    signing,
    rpcUrl: rpcUrls[0]!,
    chainId,
    eas,
    schemaRegistry,
    easVersion: await easVersion(c.publicClient, eas),
    dev: false,
    endpoints: failover.status,
    stop: async () => failover.stop(),
  };
}

async function easVersion(publicClient: PublicClient, eas: Hex): Promise<string> {
  return (await publicClient.readContract({ address: eas, abi: EAS_ARTIFACT.abi, functionName: 'version' })) as string;
}

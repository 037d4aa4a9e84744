import {
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  type Hex,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { EAS_ARTIFACT, SCHEMA_REGISTRY_ARTIFACT } from './eas-artifacts.ts';
import { ANVIL_CHAIN_ID, rpcChain } from './rpc-chain.ts';

interface EasAddresses {
  eas: Hex;
  schemaRegistry: Hex;
}

/** Deploys SchemaRegistry, then EAS pointing at it, from eas-contracts' artifacts; answers their addresses. */
export async function deployEas(publicClient: PublicClient, wallet: WalletClient): Promise<EasAddresses> {
  const deploy = async (artifact: typeof EAS_ARTIFACT, args: unknown[]) => {
    const hash = await wallet.deployContract({
      abi: artifact.abi,
      bytecode: artifact.bytecode,
      args,
      account: wallet.account!,
      chain: wallet.chain,
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    return getAddress(receipt.contractAddress!);
  };
  const schemaRegistry = await deploy(SCHEMA_REGISTRY_ARTIFACT, []);
  const eas = await deploy(EAS_ARTIFACT, [schemaRegistry]);
  return { eas, schemaRegistry };
}

/**
 * EAS on a development chain that runs apart from the service (an anvil of its own, as deploy/compose.yaml has):
 * deploys it from `deployerKey` unless `expected` already holds code there. Refuses any chain but anvil's, where
 * EAS is deployed already and a deployment would spend real funds.
 */
export async function ensureDevEas(rpcUrl: string, deployerKey: Hex, expected: EasAddresses): Promise<EasAddresses> {
  const probe = createPublicClient({ transport: http(rpcUrl) });
  const chainId = await probe.getChainId();
  if (chainId !== ANVIL_CHAIN_ID) throw new Error(`chain ${chainId} is not a development chain (${ANVIL_CHAIN_ID})`);
  const chain = rpcChain(chainId, rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });
  const there = async (address: Hex) => ((await publicClient.getCode({ address })) ?? '0x') !== '0x';
  if ((await there(expected.eas)) && (await there(expected.schemaRegistry))) return expected;
  const wallet = createWalletClient({ chain, transport: http(rpcUrl), account: privateKeyToAccount(deployerKey) });
  return deployEas(publicClient, wallet);
}

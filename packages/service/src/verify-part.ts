import { startVerifyServer, type RunningVerifyServer } from '@attestation-service/verify-web';
import { createPublicClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  clientNetworkOf,
  ConfigError,
  DEV_RELAYER_KEY,
  describeError,
  knownDeployment,
  openInfrastructure,
  PROXY_TOKEN_HEADER,
  type Config,
  type Logger,
  type WindowStore,
} from '@attestation-service/server';

interface VerifyPartInputs {
  apiUrl: string;
  chain: { rpcUrl: string; chainId: number; eas: Hex };
  /** The service attester: the relayer's address, the one identity that signs and sends. */
  attester: Hex;
  windows: WindowStore;
  /** Set when the API runs in this process: sent with every API call, so visitors are limited on their own. */
  proxyToken?: string | undefined;
}

/** The verification web app on VERIFY_PORT, trusting the given chain, EAS contract and attester. */
export async function startVerifyPart(
  config: Config,
  inputs: VerifyPartInputs,
  log: Logger,
): Promise<RunningVerifyServer> {
  const verify = await startVerifyServer({
    apiUrl: inputs.apiUrl,
    apiKey: config.verify.apiKey,
    apiHeaders: inputs.proxyToken ? { [PROXY_TOKEN_HEADER]: inputs.proxyToken } : undefined,
    rpcUrl: inputs.chain.rpcUrl,
    chainId: inputs.chain.chainId,
    easAddress: inputs.chain.eas,
    attester: inputs.attester,
    port: config.verifyPort,
    host: config.host,
    publicBaseUrl: config.verifyBaseUrl,
    windows: inputs.windows,
    limitBucketOf: (ip) => clientNetworkOf(ip, config.rateLimitIpv6Prefix),
    trustProxy: config.trustProxy,
    onError: (error) => log.error({ error: describeError(error), component: 'verify' }, 'verify request failed'),
  });
  log.info({ url: verify.url, publicUrl: config.verifyBaseUrl }, 'verification app listening');
  return verify;
}

/**
 * `serve --verify` on its own: no database, no relayer key. It reads the API at API_URL (default PUBLIC_BASE_URL)
 * and the chain at CHAIN_RPC_URL (required: the embedded dev chain belongs to the process that runs it), trusts
 * EAS_ADDRESS (or the chain's known deployment) and ATTESTER_ADDRESS (or the address of RELAYER_PRIVATE_KEY).
 */
export async function startVerifyOnly(config: Config): Promise<{ url: string; stop(): Promise<void> }> {
  const rpcUrl = config.chain.rpcUrl;
  if (!rpcUrl) throw new ConfigError('invalid configuration: CHAIN_RPC_URL is required by serve --verify on its own');
  const chainId = await createPublicClient({ transport: http(rpcUrl, { timeout: 10_000, retryCount: 2 }) })
    .getChainId()
    .catch(() => {
      throw new ConfigError('invalid configuration: CHAIN_RPC_URL does not answer eth_chainId');
    });
  const eas = config.chain.easAddress ?? knownDeployment(chainId)?.eas;
  if (!eas)
    throw new ConfigError(`invalid configuration: chain ${chainId} has no known EAS deployment; set EAS_ADDRESS`);
  // the development key's address is everyone's: trusted as the service's, any claim signed with it would pass
  const devAttester = !config.verify.attester && config.chain.relayerPrivateKey === DEV_RELAYER_KEY;
  if (devAttester && (config.productionBecause || chainId !== 31337))
    throw new ConfigError(
      `invalid configuration: ATTESTER_ADDRESS is required by serve --verify on its own when ${config.productionBecause ?? `on chain ${chainId}`} (the service attester it trusts)`,
    );
  const attester = config.verify.attester ?? privateKeyToAccount(config.chain.relayerPrivateKey).address;
  const infra = await openInfrastructure(config, { scope: 'verify' });
  const apiUrl = config.verify.apiUrl ?? config.publicBaseUrl;
  const verify = await startVerifyPart(
    config,
    { apiUrl, chain: { rpcUrl, chainId, eas }, attester, windows: infra.windows },
    infra.log,
  ).catch(async (error: unknown) => {
    await infra.close();
    throw error;
  });
  return {
    url: verify.url,
    async stop() {
      await verify.stop();
      await infra.close();
    },
  };
}

import {
  databaseIdentity,
  removeServiceState,
  writeServiceState,
  type Config,
  type ServiceState,
} from '@attestation-service/server';
import type { RunningStack } from './start.ts';

/**
 * Publishes where this service is in DATA_DIR/service.json, for the CLI and `doctor` run with the same DATA_DIR
 * (docs/operations.md, "The CLI and its service"); returns what removes it on a clean stop.
 */
export async function publishServiceState(
  config: Config,
  service: RunningStack,
  parts: { api: boolean },
): Promise<() => Promise<void>> {
  const { chain } = service.infrastructure;
  const state: ServiceState = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    ...(parts.api && { apiUrl: service.apiUrl }),
    publicBaseUrl: config.publicBaseUrl,
    verifyBaseUrl: config.verifyBaseUrl,
    ...(service.verifyUrl && { verifyUrl: service.verifyUrl }),
    ...(service.mailInboxUrl && { mailInboxUrl: service.mailInboxUrl }),
    // a CHAIN_RPC_URL may carry a provider's API key in its path: only the embedded chain's address is written
    ...(chain.dev && { devChain: { rpcUrl: chain.rpcUrl, chainId: chain.chainId, eas: chain.eas } }),
    database: databaseIdentity(config),
  };
  const written = await writeServiceState(config.dataDir, state);
  return written ? () => removeServiceState(config.dataDir, process.pid) : async () => undefined;
}

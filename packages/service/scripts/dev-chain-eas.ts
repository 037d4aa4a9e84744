// Puts EAS on a development chain that runs apart from the service (deploy/compose.yaml's anvil), for the service to
// use with EAS_ADDRESS and SCHEMA_REGISTRY_ADDRESS set to what it prints: deploys SchemaRegistry and EAS from
// RELAYER_PRIVATE_KEY (anvil's first account unless set) at the chain's CHAIN_RPC_URL, unless they are there already.
// Waits up to a minute for the chain to answer. Refuses any chain but anvil's. Run by the image:
//   node packages/service/scripts/dev-chain-eas.ts
import {
  ConfigError,
  DEV_EAS_ADDRESS,
  DEV_SCHEMA_REGISTRY_ADDRESS,
  ensureDevEas,
  loadConfig,
} from '@attestation-service/server';

const config = loadConfig();
const rpcUrl = config.chain.rpcUrl;
if (!rpcUrl) throw new ConfigError('set CHAIN_RPC_URL to the development chain');
const expected = { eas: DEV_EAS_ADDRESS, schemaRegistry: DEV_SCHEMA_REGISTRY_ADDRESS };

for (let attempt = 1; ; attempt++) {
  try {
    const { eas, schemaRegistry } = await ensureDevEas(rpcUrl, config.chain.relayerPrivateKey, expected);
    console.log(`EAS_ADDRESS=${eas}\nSCHEMA_REGISTRY_ADDRESS=${schemaRegistry}`);
    if (eas !== expected.eas)
      console.error(`EAS is not at ${expected.eas} (the deployer had sent transactions before)`);
    break;
  } catch (error) {
    if (attempt >= 30 || (error as Error).message.includes('not a development chain')) throw error;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

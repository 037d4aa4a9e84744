import type { Hex } from 'viem';

/** The EAS contracts' version(): the EIP-712 domain version of off-chain attestations. */
export const EAS_VERSION = '1.4.0';

/** Where a fresh dev chain gets SchemaRegistry and EAS: the first two deployments of anvil's account 0. */
export const DEV_SCHEMA_REGISTRY_ADDRESS: Hex = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
export const DEV_EAS_ADDRESS: Hex = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';

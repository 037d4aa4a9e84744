import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Abi, Hex } from 'viem';

const require = createRequire(import.meta.url);
const CONTRACTS_DIR = dirname(require.resolve('@ethereum-attestation-service/eas-contracts/package.json'));

interface Artifact {
  abi: Abi;
  bytecode: Hex;
}

function artifact(name: 'EAS' | 'SchemaRegistry'): Artifact {
  const json = JSON.parse(
    readFileSync(join(CONTRACTS_DIR, 'artifacts/contracts', `${name}.sol`, `${name}.json`), 'utf8'),
  ) as Artifact;
  return { abi: json.abi, bytecode: json.bytecode };
}

/** The real EAS contracts, as eas-contracts builds them. */
export const EAS_ARTIFACT = artifact('EAS');
export const SCHEMA_REGISTRY_ARTIFACT = artifact('SchemaRegistry');

/** EAS and SchemaRegistry of a chain from eas-contracts' deployments/, by chain id. */
export function knownDeployment(chainId: number): { eas: Hex; schemaRegistry: Hex } | undefined {
  const root = join(CONTRACTS_DIR, 'deployments');
  for (const network of readdirSafe(root)) {
    try {
      if (Number(readFileSync(join(root, network, '.chainId'), 'utf8').trim()) !== chainId) continue;
      const address = (file: string) =>
        (JSON.parse(readFileSync(join(root, network, file), 'utf8')) as { address: Hex }).address;
      return { eas: address('EAS.json'), schemaRegistry: address('SchemaRegistry.json') };
    } catch {
      // a network folder without these files
    }
  }
  return undefined;
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

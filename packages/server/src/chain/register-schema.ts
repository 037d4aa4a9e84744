import type { Hex, PublicClient, WalletClient } from 'viem';
import { SCHEMA_REGISTRY_ARTIFACT } from './eas-artifacts.ts';
import { SCHEMA, SCHEMA_RESOLVER, SCHEMA_REVOCABLE, SCHEMA_UID } from '@attestation-service/protocol';

/** Registers our schema on the chain's SchemaRegistry unless it is there already (its UID is deterministic). */
export async function ensureSchemaRegistered(
  publicClient: PublicClient,
  wallet: WalletClient,
  registry: Hex,
): Promise<{ registered: boolean }> {
  const existing = (await publicClient.readContract({
    address: registry,
    abi: SCHEMA_REGISTRY_ARTIFACT.abi,
    functionName: 'getSchema',
    args: [SCHEMA_UID],
  })) as { uid: Hex };
  if (existing.uid === SCHEMA_UID) return { registered: false };
  const hash = await wallet.writeContract({
    address: registry,
    abi: SCHEMA_REGISTRY_ARTIFACT.abi,
    functionName: 'register',
    args: [SCHEMA, SCHEMA_RESOLVER, SCHEMA_REVOCABLE],
    account: wallet.account!,
    chain: wallet.chain,
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  if (receipt.status !== 'success') throw new Error(`schema registration reverted in ${hash}`);
  return { registered: true };
}

import { EAS, SchemaRegistry } from '@ethereum-attestation-service/eas-sdk';
import { JsonRpcProvider } from 'ethers';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { startDevChain } from '../../src/chain/dev-chain.ts';
import { SCHEMA, SCHEMA_UID } from '@attestation-service/protocol';
import { DEV_EAS_ADDRESS, DEV_SCHEMA_REGISTRY_ADDRESS, EAS_VERSION } from '../../src/chain/deployments.ts';

const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const dataDir = await mkdtemp(join(tmpdir(), 'dev-chain-'));
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe('the embedded dev chain', () => {
  it('runs anvil with the real EAS contracts and our schema, and keeps them across restarts', async () => {
    const first = await startDevChain({ dataDir, deployerKey: DEV_KEY });
    try {
      expect(first.chainId).toBe(31337);
      expect(first.schemaRegistry).toBe(DEV_SCHEMA_REGISTRY_ADDRESS);
      expect(first.eas).toBe(DEV_EAS_ADDRESS);
      const provider = new JsonRpcProvider(first.rpcUrl, undefined, { staticNetwork: true });
      const registry = new SchemaRegistry(first.schemaRegistry);
      registry.connect(provider as never);
      const record = await registry.getSchema({ uid: SCHEMA_UID });
      expect([record.uid, record.schema, record.revocable]).toEqual([SCHEMA_UID, SCHEMA, true]);
      const eas = new EAS(first.eas);
      eas.connect(provider as never);
      expect(await eas.getVersion()).toBe(EAS_VERSION);
      // two deployments and one registration
      expect(await provider.getTransactionCount(privateKeyToAccount(DEV_KEY).address)).toBe(3);
      provider.destroy();
      // a second process on the same directory would interleave its state writes with this one's
      await expect(startDevChain({ dataDir, deployerKey: DEV_KEY })).rejects.toThrow(/is in use by process \d+/);
    } finally {
      await first.stop();
    }

    const second = await startDevChain({ dataDir, deployerKey: DEV_KEY });
    try {
      expect(second.eas).toBe(first.eas);
      const provider = new JsonRpcProvider(second.rpcUrl, undefined, { staticNetwork: true });
      const registry = new SchemaRegistry(second.schemaRegistry);
      registry.connect(provider as never);
      expect((await registry.getSchema({ uid: SCHEMA_UID })).schema).toBe(SCHEMA);
      // the state was reloaded, so nothing was deployed or registered again
      expect(await provider.getTransactionCount(privateKeyToAccount(DEV_KEY).address)).toBe(3);
      provider.destroy();
    } finally {
      await second.stop();
    }
  }, 60_000);
});

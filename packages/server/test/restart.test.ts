import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EAS } from '@ethereum-attestation-service/eas-sdk';
import { JsonRpcProvider } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/main.ts';
import { SERVICE_SECRET_FILE } from '../src/system/service-secret.ts';
import { call } from './support/service.ts';

const dataDir = await mkdtemp(join(tmpdir(), 'attestation-restart-'));
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe('restarting on the same DATA_DIR (embedded PostgreSQL and dev chain)', () => {
  it('keeps every key and attestation, on-chain ones verifiable on the reloaded chain', async () => {
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' });
    const first = await startService(config, { parts: { api: true, worker: true } });
    let key: string;
    let uid: string;
    let onchainUid: string;
    try {
      key = (await first.services.keys.create({ tier: 'free', account: 'restart' })).key;
      const created = await call(first.apiUrl, 'POST', '/v1/attestations', {
        key,
        body: { type: 'ai', content: 'survives restarts', contentType: 'text/plain', mode: 'offchain' },
      });
      expect(created.status).toBe(201);
      uid = created.body.uid;
      const onchain = await call(first.apiUrl, 'POST', '/v1/attestations', {
        key,
        body: { type: 'human', content: 'on the dev chain', contentType: 'text/plain' },
      });
      expect(onchain.status).toBe(201);
      onchainUid = onchain.body.uid;
      // the embedded default keeps the service's secret in DATA_DIR, readable by its owner only
      expect((await stat(join(dataDir, SERVICE_SECRET_FILE))).mode & 0o777).toBe(0o600);
    } finally {
      await first.stop();
    }

    const second = await startService(config, { parts: { api: true, worker: true } });
    try {
      // the same secret again: the pending setup link it sealed is unsealed and printed as it was
      expect(second.setupLink?.url).toBe(first.setupLink!.url);
      const read = await call(second.apiUrl, 'GET', `/v1/attestations/${uid}`);
      expect(read).toMatchObject({ status: 200, body: { uid, type: 'ai', mode: 'offchain' } });
      const again = await call(second.apiUrl, 'POST', '/v1/attestations', {
        key,
        body: { type: 'human', content: 'after restart', contentType: 'text/plain', mode: 'offchain' },
      });
      expect(again.status).toBe(201);
      // the dev chain reloaded its state: the earlier on-chain attestation still verifies there
      const provider = new JsonRpcProvider(second.chain.rpcUrl, undefined, { staticNetwork: true });
      const eas = new EAS(second.chain.eas);
      eas.connect(provider as never);
      expect((await eas.getAttestation(onchainUid)).uid).toBe(onchainUid);
      provider.destroy();
      const later = await call(second.apiUrl, 'POST', '/v1/attestations', {
        key,
        body: { type: 'ai', content: 'after restart, on-chain', contentType: 'text/plain' },
      });
      expect(later.status).toBe(201);
    } finally {
      await second.stop();
    }
  }, 120_000);
});

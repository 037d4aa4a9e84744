import { EAS } from '@ethereum-attestation-service/eas-sdk';
import { JsonRpcProvider } from 'ethers';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_UID } from '../../src/chain/schema.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let provider: JsonRpcProvider;
let eas: EAS;

beforeAll(async () => {
  svc = await startTestService({ env: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' } });
  const chain = svc.services.config.chain;
  provider = new JsonRpcProvider(chain.rpcUrl, undefined, { staticNetwork: true });
  eas = new EAS(chain.easAddress!);
  eas.connect(provider as never);
});
afterAll(async () => {
  provider?.destroy();
  await svc?.stop();
});

const sha = (text: string) => `0x${createHash('sha256').update(text).digest('hex')}`;

describe('on-chain attestations on a real anvil with the real EAS contracts', () => {
  it('creates one: 201 with the uid from the Attested log and the real txHash; the EAS SDK reads it back', async () => {
    const { key } = await svc.createKey('pro');
    const content = `on-chain ${Math.random()}`;
    const res = await call(svc.url, 'POST', '/v1/attestations', { key, body: { type: 'ai', content, contentType: 'text/plain' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ uid: expect.stringMatching(/^0x[0-9a-f]{64}$/), txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), mode: 'onchain' });

    const onchain = await eas.getAttestation(res.body.uid);
    expect(onchain.schema).toBe(SCHEMA_UID);
    expect(onchain.attester).toBe(svc.services.attestations ? (await call(svc.url, 'GET', `/v1/attestations/${res.body.uid}`)).body.attester : '');
    expect(onchain.data.toLowerCase()).toContain(sha(content).slice(2));

    const record = (await call(svc.url, 'GET', `/v1/attestations/${res.body.uid}`)).body;
    expect(record).toMatchObject({ mode: 'onchain', txHash: res.body.txHash, contentHash: sha(content), schemaUid: SCHEMA_UID, chainId: 31337, blockNumber: expect.any(Number), offchain: null });
  }, 60_000);
});

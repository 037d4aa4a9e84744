import { EAS, Offchain, OffchainAttestationVersion, SchemaEncoder } from '@ethereum-attestation-service/eas-sdk';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA } from '@attestation-service/protocol';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
  key = (await svc.createKey('free')).key;
});
afterAll(() => svc?.stop());

/** The package as the EAS SDK wants it: uint64s and the chain id as bigints. */
function forSdk(pkg: any) {
  return {
    ...pkg.sig,
    domain: { ...pkg.sig.domain, chainId: BigInt(pkg.sig.domain.chainId) },
    message: {
      ...pkg.sig.message,
      time: BigInt(pkg.sig.message.time),
      expirationTime: BigInt(pkg.sig.message.expirationTime),
    },
  };
}

describe('off-chain attestations, checked by the EAS SDK', () => {
  it.each(['human', 'ai'] as const)(
    'a %s attestation read back by uid verifies, and its off-chain UID is ours',
    async (type) => {
      const content = `the EAS SDK checks this ${type} content`;
      const created = await call(svc.url, 'POST', '/v1/attestations', {
        key,
        body: { type, content, contentType: 'text/plain', mode: 'offchain' },
      });
      expect(created.status).toBe(201);
      expect(created.body.txHash).toBeNull();

      const read = await call(svc.url, 'GET', `/v1/attestations/${created.body.uid}`);
      expect(read.status).toBe(200);
      const record = read.body;
      const { domain, message } = record.offchain.sig;

      const offchain = new Offchain(
        { address: domain.verifyingContract, version: domain.version, chainId: BigInt(domain.chainId) },
        OffchainAttestationVersion.Version2,
        new EAS(domain.verifyingContract),
      );
      const attestation = forSdk(record.offchain);
      expect(offchain.verifyOffchainAttestationSignature(record.attester, attestation)).toBe(true);
      expect(offchain.verifyOffchainAttestationSignature(record.offchain.signer, attestation)).toBe(true);

      const sdkUid = Offchain.getOffchainUID(
        OffchainAttestationVersion.Version2,
        message.schema,
        message.recipient,
        BigInt(message.time),
        BigInt(message.expirationTime),
        message.revocable,
        message.refUID,
        message.data,
        message.salt,
      );
      expect(sdkUid).toBe(record.uid);
      expect(record.uid).toBe(created.body.uid);

      const decoded = new SchemaEncoder(SCHEMA).decodeData(message.data);
      expect(decoded.find((f) => f.name === 'contentHash')?.value.value).toBe(
        `0x${createHash('sha256').update(content).digest('hex')}`,
      );
      expect(decoded.find((f) => f.name === 'aiGenerated')?.value.value).toBe(type === 'ai');
      expect(message.schema).toBe(record.schemaUid);
    },
  );

  it('a tampered package no longer verifies', async () => {
    const created = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', content: 'tamper', contentType: 'text/plain', mode: 'offchain' },
    });
    const { sig } = created.body.offchain;
    const offchain = new Offchain(
      { address: sig.domain.verifyingContract, version: sig.domain.version, chainId: BigInt(sig.domain.chainId) },
      OffchainAttestationVersion.Version2,
      new EAS(sig.domain.verifyingContract),
    );
    const tampered = forSdk({
      ...created.body.offchain,
      sig: { ...sig, message: { ...sig.message, time: String(Number(sig.message.time) + 1) } },
    });
    expect(offchain.verifyOffchainAttestationSignature(created.body.offchain.signer, tampered)).toBe(false);
  });
});

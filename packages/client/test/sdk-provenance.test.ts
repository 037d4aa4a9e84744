import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../server/test/support/service.ts';
import { createClient, offchainUid, verifyOffchain, type OffchainPackage } from '../src/index.ts';
import { caught } from './caught.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.stop());

const item = (refUid?: string) => ({
  type: 'human' as const,
  contentHash: randomBytes(32).toString('hex'),
  contentType: 'text/plain',
  mode: 'offchain' as const,
  ...(refUid ? { refUid } : {}),
});

describe('SDK: provenance', () => {
  it('creates with refUid, reads it on the record and walks the chain with attestations.provenance', async () => {
    const client = createClient({ baseUrl: svc.url, apiKey: (await svc.createKey('pro')).key });
    const origin = await client.attestations.create(item());
    const derived = await client.attestations.create(item(origin.uid));

    const record = await createClient({ baseUrl: svc.url }).attestations.get(derived.uid);
    expect(record.refUid).toBe(origin.uid);
    const chain = await createClient({ baseUrl: svc.url }).attestations.provenance(derived.uid);
    expect(chain).toMatchObject({ uid: derived.uid, truncated: false });
    expect(chain.links.map((l) => [l.uid, l.refUid, l.verdict])).toEqual([
      [derived.uid, origin.uid, 'valid'],
      [origin.uid, null, 'valid'],
    ]);
  });

  it('surfaces an unknown refUid as NOT_FOUND', async () => {
    const client = createClient({ baseUrl: svc.url, apiKey: (await svc.createKey('pro')).key });
    const unknown = `0x${randomBytes(32).toString('hex')}`;
    const error = await caught(client.attestations.create(item(unknown)));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.details).toEqual({ refUid: unknown });
  });

  it('verifyOffchain: the signed refUID is the record’s, and a changed refUID fails', async () => {
    const client = createClient({ baseUrl: svc.url, apiKey: (await svc.createKey('pro')).key });
    const origin = await client.attestations.create(item());
    const record = await client.attestations.get((await client.attestations.create(item(origin.uid))).uid);
    const options = { attester: record.attester, uid: record.uid };

    expect(await verifyOffchain(record.offchain, { ...options, refUid: record.refUid })).toMatchObject({
      valid: true,
      refUid: origin.uid,
    });
    // a record that shows another origin than the one signed
    expect(await verifyOffchain(record.offchain, { ...options, refUid: null })).toMatchObject({
      valid: false,
      reason: 'ref_mismatch',
    });

    const other = `0x${randomBytes(32).toString('hex')}`;
    const changed = structuredClone(record.offchain) as OffchainPackage;
    changed.sig.message.refUID = other;
    // the uid hashes the refUID: the package no longer is the attestation it says it is
    expect(await verifyOffchain(changed, options)).toMatchObject({ valid: false, reason: 'uid_mismatch' });
    // and with its uid recomputed to match, the signature no longer recovers to the attester
    changed.sig.uid = offchainUid(changed.sig.message);
    expect(await verifyOffchain(changed, { attester: record.attester })).toMatchObject({
      valid: false,
      reason: 'wrong_attester',
    });
  });
});

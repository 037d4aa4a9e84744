import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../server/test/support/service.ts';
import { AI_DETAILS_SCHEMA_UID, createClient, verifyOffchain } from '../src/index.ts';
import { caught } from './caught.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.stop());

const PROMPT_HASH = `0x${'c3'.repeat(32)}`;
const item = (overrides: Record<string, unknown> = {}) => ({
  type: 'ai' as const,
  contentHash: randomBytes(32).toString('hex'),
  contentType: 'image/png',
  mode: 'offchain' as const,
  ai: { model: 'stability/sdxl-1.0', promptHash: PROMPT_HASH.slice(2).toUpperCase() },
  ...overrides,
});

describe('SDK: the model behind an AI claim', () => {
  it('creates with ai, reads it back, and verifyOffchain checks the signed AI details', async () => {
    const client = createClient({ baseUrl: svc.url, apiKey: (await svc.createKey('pro')).key });
    const created = await client.attestations.create(item());
    expect(created.ai).toMatchObject({ model: 'stability/sdxl-1.0', promptHash: PROMPT_HASH });

    const record = await createClient({ baseUrl: svc.url }).attestations.get(created.uid);
    expect(record.ai).toMatchObject({ model: 'stability/sdxl-1.0', promptHash: PROMPT_HASH });
    expect(record.ai!.offchain!.sig.message).toMatchObject({ refUID: record.uid, schema: AI_DETAILS_SCHEMA_UID });
    // the claim's own package is unchanged: the details ride a second attestation
    expect(record.offchain!.sig.uid).toBe(record.uid);

    const options = { attester: record.attester, uid: record.uid, chainId: record.chainId };
    expect(await verifyOffchain(record.offchain, { ...options, ai: record.ai })).toMatchObject({
      valid: true,
      ai: { model: 'stability/sdxl-1.0', promptHash: PROMPT_HASH },
    });
    // a record that shows another model, or another prompt hash, than the one signed
    for (const ai of [
      { ...record.ai!, model: 'stability/sdxl-1.1' },
      { ...record.ai!, promptHash: null },
    ])
      expect(await verifyOffchain(record.offchain, { ...options, ai })).toMatchObject({
        valid: false,
        reason: 'ai_mismatch',
      });
    // signed data changed to say another model: its uid no longer holds
    const forged = structuredClone(record.ai!);
    forged.offchain!.sig.message.data = forged.offchain!.sig.message.data.replace(
      Buffer.from('sdxl-1.0').toString('hex'),
      Buffer.from('sdxl-9.9').toString('hex'),
    );
    expect(
      await verifyOffchain(record.offchain, { ...options, ai: { ...forged, model: 'stability/sdxl-9.9' } }),
    ).toMatchObject({ valid: false, reason: 'ai_mismatch', message: expect.stringMatching(/hash to/) });
    // details signed for another claim do not carry over
    const other = await client.attestations.get((await client.attestations.create(item())).uid);
    expect(await verifyOffchain(record.offchain, { ...options, ai: other.ai })).toMatchObject({
      valid: false,
      reason: 'ai_mismatch',
    });
  });

  it('refuses ai on a human claim with VALIDATION_FAILED, and creates nothing', async () => {
    const client = createClient({ baseUrl: svc.url, apiKey: (await svc.createKey('pro')).key });
    const body = item({ type: 'human' });
    const error = await caught(client.attestations.create(body));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details).toEqual({ errors: [expect.objectContaining({ path: 'ai' })] });
    expect((await createClient({ baseUrl: svc.url }).attestations.search({ hash: body.contentHash })).data).toEqual([]);
  });
});

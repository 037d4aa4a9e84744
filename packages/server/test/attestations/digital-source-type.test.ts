import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDigitalSourceType, IPTC_DIGITAL_SOURCE_TYPE } from '../../src/attestations/digital-source-type.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

const iptc = (term: string) => IPTC_DIGITAL_SOURCE_TYPE + term;

describe('checkDigitalSourceType', () => {
  it.each([
    ['ai', 'trainedAlgorithmicMedia'],
    ['ai', 'compositeWithTrainedAlgorithmicMedia'],
    ['human', 'digitalCapture'],
    ['human', 'humanEdits'],
    ['human', 'digitalCreation'],
    ['human', 'algorithmicMedia'],
  ] as const)('accepts %s with %s', (type, term) => {
    expect(checkDigitalSourceType(iptc(term), type)).toEqual({ term });
  });

  it.each([
    ['human', 'trainedAlgorithmicMedia', /contradicts type "human"/],
    ['human', 'compositeWithTrainedAlgorithmicMedia', /contradicts type "human"/],
    ['ai', 'digitalCapture', /contradicts type "ai"/],
    ['ai', 'humanEdits', /contradicts type "ai"/],
    ['human', 'digitalArt', /retired by IPTC: use digitalCreation/],
    ['human', 'madeUp', /not an IPTC digital source type/],
    ['ai', '', /not an IPTC digital source type/],
  ] as const)('refuses %s with %s', (type, term, problem) => {
    const checked = checkDigitalSourceType(iptc(term), type);
    expect('problem' in checked && checked.problem).toMatch(problem);
  });

  it.each(['trainedAlgorithmicMedia', 'https://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia'])(
    'refuses %s: only the IPTC URI names a term',
    (value) => {
      const checked = checkDigitalSourceType(value, 'ai');
      expect('problem' in checked && checked.problem).toMatch(/must be an IPTC digital source type URI/);
    },
  );
});

describe('digitalSourceType through the API', () => {
  let svc: TestService;
  let receiver: Receiver;
  beforeAll(async () => {
    svc = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    receiver = await startReceiver();
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await receiver?.close();
  });

  const item = (overrides: Record<string, unknown> = {}) => ({
    type: 'ai',
    content: `dst ${Math.random()}`,
    contentType: 'image/png',
    mode: 'offchain',
    ...overrides,
  });

  it("defaults by type and shows in the created result, the record, the search and the webhook's record", async () => {
    const { key } = await svc.createKey('pro');
    const sub = { url: receiver.url, events: ['attestation.created'] };
    expect((await call(svc.url, 'POST', '/v1/webhooks', { key, body: sub })).status).toBe(201);
    const content = `default ${Math.random()}`;
    const ai = await call(svc.url, 'POST', '/v1/attestations', { key, body: item({ content }) });
    const human = await call(svc.url, 'POST', '/v1/attestations', { key, body: item({ content, type: 'human' }) });
    expect(ai.body.digitalSourceType).toBe(iptc('trainedAlgorithmicMedia'));
    expect(human.body.digitalSourceType).toBe(iptc('digitalCreation'));
    const read = await call(svc.url, 'GET', `/v1/attestations/${ai.body.uid}`);
    expect(read.body.digitalSourceType).toBe(iptc('trainedAlgorithmicMedia'));
    const hash = `0x${createHash('sha256').update(content).digest('hex')}`;
    const found = await call(svc.url, 'GET', `/v1/attestations?hash=${hash}`);
    expect(
      Object.fromEntries(
        found.body.data.map((r: { type: string; digitalSourceType: string }) => [r.type, r.digitalSourceType]),
      ),
    ).toEqual({ ai: iptc('trainedAlgorithmicMedia'), human: iptc('digitalCreation') });
    const events = (await receiver.waitFor(2, 30_000)).map(
      (r) => JSON.parse(r.body) as { data: Record<string, string> },
    );
    expect(events.map((e) => e.data.digitalSourceType).sort()).toEqual(
      [iptc('digitalCreation'), iptc('trainedAlgorithmicMedia')].sort(),
    );
  }, 60_000);

  it('keeps a given term, on-chain and off-chain, alone and in a batch', async () => {
    const { key } = await svc.createKey('enterprise');
    const composite = iptc('compositeWithTrainedAlgorithmicMedia');
    const onchain = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: item({ mode: 'onchain', digitalSourceType: composite }),
    });
    expect(onchain.status).toBe(201);
    expect(onchain.body.digitalSourceType).toBe(composite);
    expect((await call(svc.url, 'GET', `/v1/attestations/${onchain.body.uid}`)).body.digitalSourceType).toBe(composite);
    const batch = await call(svc.url, 'POST', '/v1/attestations/batch', {
      key,
      body: {
        attestations: [
          item({ type: 'human', digitalSourceType: iptc('digitalCapture') }),
          item({ mode: 'onchain', type: 'human', digitalSourceType: iptc('humanEdits') }),
          item(),
        ],
      },
    });
    expect(batch.status).toBe(201);
    expect(batch.body.attestations.map((a: { digitalSourceType: string }) => a.digitalSourceType)).toEqual([
      iptc('digitalCapture'),
      iptc('humanEdits'),
      iptc('trainedAlgorithmicMedia'),
    ]);
  }, 60_000);

  it.each([
    ['an AI term for human content', { type: 'human', digitalSourceType: iptc('trainedAlgorithmicMedia') }],
    ['a capture term for AI content', { type: 'ai', digitalSourceType: iptc('digitalCapture') }],
    ['a bare term', { digitalSourceType: 'trainedAlgorithmicMedia' }],
    ['a term IPTC does not have', { digitalSourceType: iptc('dreamt') }],
  ])('answers 400 VALIDATION_FAILED for %s and stores nothing', async (_, overrides) => {
    const { key } = await svc.createKey('pro');
    const content = `refused ${Math.random()}`;
    const res = await call(svc.url, 'POST', '/v1/attestations', { key, body: item({ content, ...overrides }) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.details.errors).toEqual([expect.objectContaining({ path: 'digitalSourceType' })]);
    const hash = `0x${createHash('sha256').update(content).digest('hex')}`;
    expect((await call(svc.url, 'GET', `/v1/attestations?hash=${hash}`)).body.data).toEqual([]);
  });

  it('refuses a whole batch whose one item contradicts its type, naming the item', async () => {
    const { key } = await svc.createKey('pro');
    const res = await call(svc.url, 'POST', '/v1/attestations/batch', {
      key,
      body: { attestations: [item(), item({ type: 'human', digitalSourceType: iptc('trainedAlgorithmicMedia') })] },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.errors).toEqual([expect.objectContaining({ path: 'attestations.1.digitalSourceType' })]);
  });
});

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../../server/test/support/service.ts';
import { createClient, isServiceError } from '../src/index.ts';
import { caught } from './caught.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.stop());

const sha = (text: string) => `0x${createHash('sha256').update(text).digest('hex')}`;

describe('SDK: attestations', () => {
  it('creates off-chain, reads by uid and searches by hash', async () => {
    const { key } = await svc.createKey('pro');
    const client = createClient({ baseUrl: svc.url, apiKey: key });
    const content = `sdk ${Math.random()}`;
    const created = await client.attestations.create({
      type: 'ai',
      content,
      contentType: 'text/markdown',
      mode: 'offchain',
    });
    expect(created).toMatchObject({ uid: expect.stringMatching(/^0x[0-9a-f]{64}$/), txHash: null, mode: 'offchain' });

    const anonymous = createClient({ baseUrl: svc.url });
    const record = await anonymous.attestations.get(created.uid);
    expect(record).toMatchObject({
      uid: created.uid,
      type: 'ai',
      contentHash: sha(content),
      contentType: 'text/markdown',
      revoked: false,
    });

    const page = await anonymous.attestations.search({ hash: sha(content) });
    expect(page.data.map((r) => r.uid)).toEqual([created.uid]);
    expect(page.nextCursor).toBeNull();
  });

  it('searchAll walks every page', async () => {
    const { key } = await svc.createKey('pro');
    const client = createClient({ baseUrl: svc.url, apiKey: key });
    const contentHash = sha(`many ${Math.random()}`);
    const uids: string[] = [];
    for (let i = 0; i < 5; i++)
      uids.push(
        (await client.attestations.create({ type: 'human', contentHash, contentType: 'text/plain', mode: 'offchain' }))
          .uid,
      );
    const seen: string[] = [];
    for await (const record of client.attestations.searchAll({ hash: contentHash, limit: 2 })) seen.push(record.uid);
    expect(seen).toEqual(uids.reverse());
  });

  it('replays a write sent twice with the same idempotency key', async () => {
    const { key } = await svc.createKey('pro');
    const client = createClient({ baseUrl: svc.url, apiKey: key });
    const input = {
      type: 'human' as const,
      content: `idem ${Math.random()}`,
      contentType: 'text/plain',
      mode: 'offchain' as const,
    };
    const a = await client.attestations.create(input, { idempotencyKey: 'order-42' });
    const b = await client.attestations.create(input, { idempotencyKey: 'order-42' });
    expect(b.uid).toBe(a.uid);
  });
});

describe('SDK: typed errors carry the server code and details', () => {
  it('401 MISSING_API_KEY and INVALID_API_KEY', async () => {
    const input = { type: 'human' as const, content: 'x', contentType: 'text/plain', mode: 'offchain' as const };
    const missing = await caught(createClient({ baseUrl: svc.url }).attestations.create(input));
    expect(missing).toMatchObject({ code: 'MISSING_API_KEY', status: 401, details: {} });
    const invalid = await caught(
      createClient({ baseUrl: svc.url, apiKey: `svc_free_000000000000_${'0'.repeat(32)}` }).attestations.create(input),
    );
    expect(invalid).toMatchObject({ code: 'INVALID_API_KEY', status: 401 });
    expect(invalid.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('404 NOT_FOUND', async () => {
    const error = await caught(createClient({ baseUrl: svc.url }).attestations.get(`0x${'00'.repeat(32)}`));
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('400 VALIDATION_FAILED with the failing paths', async () => {
    const { key } = await svc.createKey('pro');
    const error = await caught(
      createClient({ baseUrl: svc.url, apiKey: key }).attestations.create({
        type: 'human',
        content: 'x',
        contentType: 'not a type',
        mode: 'offchain',
      }),
    );
    expect(error.is('VALIDATION_FAILED') && error.details.errors[0]?.path).toBe('contentType');
  });

  it('429 RATE_LIMITED with limit, window and retry-after details (retries off)', async () => {
    const { key } = await svc.createKey('free');
    for (let i = 0; i < 30; i++) await call(svc.url, 'GET', '/v1/webhooks', { key });
    const client = createClient({ baseUrl: svc.url, apiKey: key, retry: { maxRetries: 0 } });
    const error = await caught(
      client.attestations.create({ type: 'human', content: 'x', contentType: 'text/plain', mode: 'offchain' }),
    );
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      details: { limit: 30, windowSeconds: 60, retryAfterSeconds: expect.any(Number) },
    });
    expect(isServiceError(error, 'RATE_LIMITED')).toBe(true);
  });

  it('NETWORK_ERROR when nothing answers', async () => {
    const error = await caught(
      createClient({ baseUrl: 'http://127.0.0.1:9', retry: { maxRetries: 0 } }).system.health(),
    );
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', status: 0 });
  });
});

describe('SDK: usage', () => {
  it("reads the key's and its account's windows and quotas", async () => {
    const { key, prefix } = await svc.createKey('pro');
    await svc.chargeQuota(prefix, 3);
    const usage = await createClient({ baseUrl: svc.url, apiKey: key }).usage();
    expect(usage.key).toMatchObject({ prefix, tier: 'pro', onchain: { used: 3, limit: 2000, remaining: 1997 } });
    expect(usage.key.rate).toMatchObject({ limit: 600, remaining: 599, windowSeconds: 60 });
    expect(usage.account.onchain.used).toBe(3);
    const error = await caught(createClient({ baseUrl: svc.url }).usage());
    expect(isServiceError(error, 'MISSING_API_KEY')).toBe(true);
  });
});

describe('SDK: your own attestations', () => {
  it('lists them newest first, filtered, and only with a key', async () => {
    const { key } = await svc.createKey('pro');
    const client = createClient({ baseUrl: svc.url, apiKey: key });
    const made = async (type: 'human' | 'ai') =>
      (
        await client.attestations.create({
          type,
          content: `mine ${Math.random()}`,
          contentType: 'text/plain',
          mode: 'offchain',
        })
      ).uid;
    const human = await made('human');
    const ai = await made('ai');
    expect((await client.attestations.mine()).data.map((r) => r.uid)).toEqual([ai, human]);
    expect((await client.attestations.mine({ type: 'human' })).data.map((r) => r.uid)).toEqual([human]);
    const error = await caught(createClient({ baseUrl: svc.url }).attestations.mine());
    expect(isServiceError(error, 'MISSING_API_KEY')).toBe(true);
  });
});

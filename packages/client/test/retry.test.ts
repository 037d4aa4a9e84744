import { http, HttpResponse, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../server/test/support/service.ts';
import { createClient } from '../src/index.ts';

// msw stands in only for what the real server will not do on demand: answer 429/503 exactly once.
let svc: TestService;
let key: string;
const mock = setupServer();

beforeAll(async () => {
  svc = await startTestService();
  key = (await svc.createKey('pro')).key;
  mock.listen({ onUnhandledFrame: 'bypass' });
});
afterEach(() => mock.resetHandlers());
afterAll(async () => {
  mock.close();
  await svc?.stop();
});

const input = { type: 'human' as const, content: 'retried', contentType: 'text/plain', mode: 'offchain' as const };

function failFirst(
  status: number,
  code: string,
  retryAfter: string | undefined,
  seen: { at: number; idempotencyKey: string | null }[],
) {
  mock.use(
    http.post(`${svc.url}/trpc/attestations.create`, ({ request }) => {
      seen.push({ at: Date.now(), idempotencyKey: request.headers.get('idempotency-key') });
      if (seen.length > 1) return passthrough();
      return HttpResponse.json(
        { error: { message: 'nope', code: -32029, data: { code, details: {}, httpStatus: status } } },
        { status, headers: retryAfter ? { 'retry-after': retryAfter } : {} },
      );
    }),
  );
}

describe('SDK retries', () => {
  it('retries a 429 RATE_LIMITED after Retry-After, with the same Idempotency-Key', async () => {
    const seen: { at: number; idempotencyKey: string | null }[] = [];
    failFirst(429, 'RATE_LIMITED', '1', seen);
    const created = await createClient({ baseUrl: svc.url, apiKey: key }).attestations.create(input);
    expect(created.uid).toMatch(/^0x/);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
    expect(seen[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.idempotencyKey).toBe(seen[0]!.idempotencyKey);
  });

  it('retries a 503 CHAIN_UNAVAILABLE', async () => {
    const seen: { at: number; idempotencyKey: string | null }[] = [];
    failFirst(503, 'CHAIN_UNAVAILABLE', '0', seen);
    await createClient({ baseUrl: svc.url, apiKey: key }).attestations.create(input);
    expect(seen).toHaveLength(2);
  });

  it.each([502, 504])('retries a %i a proxy in front answers (a replica died or timed out)', async (status) => {
    const seen: { at: number; idempotencyKey: string | null }[] = [];
    mock.use(
      http.post(`${svc.url}/trpc/attestations.create`, ({ request }) => {
        seen.push({ at: Date.now(), idempotencyKey: request.headers.get('idempotency-key') });
        if (seen.length > 1) return passthrough();
        return new HttpResponse('<html><body>Bad Gateway</body></html>', {
          status,
          headers: { 'content-type': 'text/html' },
        });
      }),
    );
    const created = await createClient({ baseUrl: svc.url, apiKey: key }).attestations.create(input);
    expect(created.uid).toMatch(/^0x/);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.idempotencyKey).toBe(seen[0]!.idempotencyKey);
  });

  it('never retries 429 QUOTA_EXCEEDED: a monthly quota does not come back in seconds', async () => {
    const seen: { at: number; idempotencyKey: string | null }[] = [];
    failFirst(429, 'QUOTA_EXCEEDED', '1', seen);
    await expect(createClient({ baseUrl: svc.url, apiKey: key }).attestations.create(input)).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
    });
    expect(seen).toHaveLength(1);
  });

  it('gives up after maxRetries and surfaces the error', async () => {
    let calls = 0;
    mock.use(
      http.get(`${svc.url}/trpc/system.ready`, () => {
        calls++;
        return HttpResponse.json(
          { error: { message: 'busy', code: -32603, data: { code: 'NOT_READY', details: {}, httpStatus: 503 } } },
          { status: 503, headers: { 'retry-after': '0' } },
        );
      }),
    );
    await expect(createClient({ baseUrl: svc.url, retry: { maxRetries: 2 } }).system.ready()).rejects.toMatchObject({
      code: 'NOT_READY',
      status: 503,
    });
    expect(calls).toBe(3);
  });
});

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.ts';
import { collectRoutes } from '../../src/http/routes.ts';
import { appRouter } from '../../src/router.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
  key = (await svc.createKey('enterprise')).key;
});
afterAll(() => svc?.stop());

const rest = collectRoutes(appRouter);
/** Every REST route the router declares, and each procedure on /trpc as httpLink calls it (a query by GET). */
const ROUTES = [
  ...rest.map((route) => [route.method, route.path] as const),
  ...rest.map((route) => [route.method === 'GET' ? 'GET' : 'POST', `/trpc/${route.procedure}`] as const),
];

/** 5xx answers that are deliberate and documented, not failures: no chain yet. */
const DELIBERATE_5XX = new Set(['CHAIN_UNAVAILABLE']);

const segment = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.constantFrom('0x' + 'ab'.repeat(32), '0x', '..', '%00', '%ZZ', '{uid}', 'batch'),
);
const jsonish = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record({
    type: fc.oneof(fc.constantFrom('human', 'ai'), fc.jsonValue()),
    content: fc.option(fc.oneof(fc.string(), fc.jsonValue()), { nil: undefined }),
    contentHash: fc.option(fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string()), { nil: undefined }),
    contentType: fc.oneof(fc.constantFrom('text/plain', 'image/png'), fc.string()),
    mode: fc.option(fc.oneof(fc.constantFrom('offchain', 'onchain'), fc.string()), { nil: undefined }),
    attestations: fc.option(fc.array(fc.jsonValue(), { maxLength: 3 }), { nil: undefined }),
    url: fc.option(fc.oneof(fc.webUrl(), fc.string()), { nil: undefined }),
    events: fc.option(fc.array(fc.string(), { maxLength: 3 }), { nil: undefined }),
  }),
);
const body = fc.oneof(
  jsonish.map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.constant(''),
  fc.constant('{"a":'),
);
const query = fc.dictionary(
  fc.constantFrom('hash', 'limit', 'cursor', 'format', 'from', 'to', 'x', 'input'),
  fc.oneof(fc.string({ maxLength: 70 }), fc.stringMatching(/^[0-9a-f]{64}$/), fc.integer().map(String)),
  { maxKeys: 4 },
);
const headers = fc.record(
  {
    authorization: fc.oneof(
      fc.constant(`Bearer ${'KEY'}`),
      fc.string({ maxLength: 60 }).map((s) => `Bearer ${s}`),
      fc.string({ maxLength: 40 }),
    ),
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/json; charset=utf-8',
      'multipart/form-data',
      'application/x-www-form-urlencoded',
    ),
    'idempotency-key': fc.oneof(fc.uuid(), fc.string({ maxLength: 300 })),
    accept: fc.constantFrom('application/json', 'text/csv', '*/*', 'text/html'),
    'x-request-id': fc.string({ maxLength: 200 }),
  },
  { requiredKeys: [] },
);
const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS');

/** Header values a client can actually send (fetch refuses control characters and non-Latin-1). */
function sendable(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '');
}

describe('fuzzing every route', () => {
  it('never answers 500 or a non-deliberate 5xx, and every error has a code', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        fc.boolean(),
        method,
        fc.array(segment, { maxLength: 2 }),
        query,
        headers,
        body,
        async ([routeMethod, path], keepMethod, randomMethod, extra, q, h, b) => {
          const filled = path
            .replace('{uid}', encodeURIComponent(extra[0] ?? '0x' + 'ab'.repeat(32)))
            .replace('{id}', encodeURIComponent(extra[1] ?? 'wh'));
          const url = new URL(`${svc.url}${filled}`);
          for (const [k, v] of Object.entries(q)) url.searchParams.set(k, v);
          const sentHeaders: Record<string, string> = {};
          for (const [k, v] of Object.entries(h)) if (v !== undefined) sentHeaders[k] = sendable(v.replace('KEY', key));
          const m = keepMethod ? routeMethod : randomMethod;
          const res = await fetch(url, {
            method: m,
            headers: sentHeaders,
            body: m === 'GET' || m === 'HEAD' ? undefined : b,
          });
          const text = await res.text();
          if (m === 'HEAD' || res.status === 204) return;
          expect(res.status, `${m} ${url.pathname} → ${res.status} ${text}`).toBeLessThan(600);
          if (res.ok && res.headers.get('content-type')?.startsWith('text/csv')) return; // the audit export, as CSV
          let parsed: any;
          try {
            parsed = JSON.parse(text);
          } catch {
            throw new Error(
              `${m} ${url.pathname}${url.search} answered ${res.status} with a non-JSON body: ${text.slice(0, 200)}`,
            );
          }
          if (res.status >= 400) {
            const code = url.pathname.startsWith('/trpc/') ? parsed.error?.data?.code : parsed.code;
            expect(ERROR_CODES, `${m} ${url.pathname} → ${text}`).toContain(code);
            if (!url.pathname.startsWith('/trpc/'))
              expect(Object.keys(parsed).sort()).toEqual(['code', 'details', 'message']);
          }
          if (res.status >= 500) {
            const code = url.pathname.startsWith('/trpc/') ? parsed.error?.data?.code : parsed.code;
            expect(DELIBERATE_5XX.has(code), `${m} ${url.pathname}${url.search} → ${res.status} ${text}`).toBe(true);
          }
          expect(text).not.toMatch(/at .+\.(ts|js):\d+|prisma|SELECT |INSERT /i);
        },
      ),
      { numRuns: 600, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000), verbose: 1 },
    );
  }, 120_000);
});

import { http as mswHttp, HttpResponse, bypass, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';

// msw stands only where a real node cannot be made to misbehave on demand: between our relayer and the RPC.
let svc: TestService;
let key: string;
const mock = setupServer();

beforeAll(async () => {
  // listening first: the service's RPC client must be built on the intercepted fetch
  mock.listen({ onUnhandledFrame: 'bypass' });
  svc = await startTestService({ env: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' } });
  key = (await svc.createKey('enterprise')).key;
});
afterEach(() => mock.resetHandlers());
afterAll(async () => {
  mock.close();
  await svc?.stop();
});

type Fault = (request: Request) => Promise<Response | undefined>;
const rpcError = (id: number, message: string) =>
  HttpResponse.json({ jsonrpc: '2.0', id, error: { code: -32000, message } });

/** Applies `fault` to the first eth_sendRawTransaction only; everything else reaches anvil. Returns whether it struck. */
function faultOnFirstSend(fault: Fault): () => boolean {
  let used = false;
  mock.use(
    mswHttp.post(svc.chain.rpcUrl, async ({ request }) => {
      const body = (await request.clone().json()) as { method?: string };
      if (used || body.method !== 'eth_sendRawTransaction') return passthrough();
      used = true;
      return (await fault(request)) ?? passthrough();
    }),
  );
  return () => used;
}

async function relayerNonce(): Promise<number> {
  const [row] = await svc.sql.query<{ n: string }>(
    `SELECT count(*) AS n FROM relay_transactions WHERE status = 'mined'`,
  );
  return Number(row!.n);
}

async function createOnce(label: string) {
  const content = `${label} ${Math.random()}`;
  const res = await call(svc.url, 'POST', '/v1/attestations', {
    key,
    body: { type: 'human', content, contentType: 'text/plain' },
  });
  const rows = await svc.sql.query<{ status: string; uid: string | null }>(
    `SELECT status, uid FROM attestations WHERE content_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex') OR content_hash = '0x' || encode(sha256(convert_to($1, 'UTF8')), 'hex')`,
    [content],
  );
  return { res, rows };
}

describe('RPC faults while relaying', () => {
  it.each<[string, Fault]>([
    ['the provider answers 429 once', async () => HttpResponse.json({ message: 'Too Many Requests' }, { status: 429 })],
    [
      'the connection drops after the node took the transaction',
      async (request) => {
        await fetch(bypass(request));
        return HttpResponse.error();
      },
    ],
    [
      'the node says "nonce too low" without taking it',
      async (request) => rpcError(((await request.clone().json()) as { id: number }).id, 'nonce too low'),
    ],
    [
      'the node says "replacement transaction underpriced"',
      async (request) =>
        rpcError(((await request.clone().json()) as { id: number }).id, 'replacement transaction underpriced'),
    ],
  ])(
    '%s: the caller gets 201 and exactly one attestation is made',
    async (label, fault) => {
      const struck = faultOnFirstSend(fault);
      const minedBefore = await relayerNonce();
      const { res, rows } = await createOnce(label);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(rows).toEqual([{ status: 'confirmed', uid: res.body.uid }]);
      expect(await relayerNonce()).toBe(minedBefore + 1);
      expect(struck()).toBe(true);
    },
    60_000,
  );
});

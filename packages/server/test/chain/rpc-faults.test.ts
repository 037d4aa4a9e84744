import { createHash } from 'node:crypto';
import { http as mswHttp, HttpResponse, bypass, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateChain, type PrivateChain } from '../support/anvil.ts';
import { call, fundedKey, startTestService, type TestService } from '../support/service.ts';

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

/** Applies `fault` to the `nth` eth_sendRawTransaction to `rpcUrl` only; everything else reaches anvil. Returns whether it struck. */
function faultOnSend(fault: Fault, rpcUrl = svc.chain.rpcUrl, nth = 1): () => boolean {
  let sends = 0;
  mock.use(
    mswHttp.post(rpcUrl, async ({ request }) => {
      const body = (await request.clone().json()) as { method?: string };
      if (body.method !== 'eth_sendRawTransaction' || ++sends !== nth) return passthrough();
      return (await fault(request)) ?? passthrough();
    }),
  );
  return () => sends >= nth;
}

async function relayerNonce(): Promise<number> {
  const rows = await svc.db.selectFrom('relayTransactions').select('id').where('status', '=', 'mined').execute();
  return rows.length;
}

async function createOnce(label: string) {
  const content = `${label} ${Math.random()}`;
  const res = await call(svc.url, 'POST', '/v1/attestations', {
    key,
    body: { type: 'human', content, contentType: 'text/plain' },
  });
  const hash = createHash('sha256').update(content, 'utf8').digest('hex');
  const rows = await svc.db
    .selectFrom('attestations')
    .select(['status', 'uid'])
    .where('contentHash', 'in', [hash, `0x${hash}`])
    .execute();
  return { res, rows };
}

const FAULTS: Array<[string, Fault]> = [
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
];

describe('RPC faults while relaying', () => {
  it.each(FAULTS)(
    '%s: the caller gets 201 and exactly one attestation is made',
    async (label, fault) => {
      const struck = faultOnSend(fault);
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

describe('RPC faults with several transactions in flight (anvil mining a block a second)', () => {
  let chain: PrivateChain;
  let busy: TestService;
  let busyKey: string;

  beforeAll(async () => {
    chain = await startPrivateChain({ blockTimeSeconds: 1 });
    busy = await startTestService({
      env: {
        CHAIN_RPC_URL: chain.rpcUrl,
        EAS_ADDRESS: chain.eas,
        SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
        RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      },
    });
    busyKey = (await busy.createKey('enterprise')).key;
  }, 60_000);
  afterAll(async () => {
    await busy?.stop();
    await chain?.close();
  });

  it.each(FAULTS)(
    '%s, at the second of several: every create gets 201 and the chain holds each item exactly once',
    async (label, fault) => {
      const struck = faultOnSend(fault, chain.rpcUrl, 2);
      const answers: Array<ReturnType<typeof call>> = [];
      for (let i = 0; i < 8; i++) {
        const body = { type: 'human', content: `${label} ${i} ${Math.random()}`, contentType: 'text/plain' };
        answers.push(call(busy.url, 'POST', '/v1/attestations', { key: busyKey, body }));
        await new Promise((r) => setTimeout(r, 120));
      }
      const results = await Promise.all(answers);
      for (const res of results) expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(struck()).toBe(true);

      // several transactions were in flight together: one block mined more than one of them
      const perBlock = await busy.db
        .selectFrom('relayTransactions')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('txHash', 'in', [...new Set(results.map((r) => r.body.txHash as string))])
        .groupBy('blockNumber')
        .execute();
      expect(Math.max(...perBlock.map((b) => Number(b.n)))).toBeGreaterThan(1);
      // nothing lost, nothing twice: every item confirmed, and the chain holds exactly their attestations
      const rows = await busy.db.selectFrom('attestations').select(['uid', 'status']).execute();
      expect(rows.filter((r) => r.status !== 'confirmed')).toEqual([]);
      expect(rows.map((r) => r.uid)).toEqual(expect.arrayContaining(results.map((r) => r.body.uid)));
      const relayer = privateKeyToAccount(busy.config.chain.relayerPrivateKey).address;
      expect((await chain.attestedBy(relayer)).sort()).toEqual(rows.map((r) => r.uid).sort());
    },
    30_000,
  );
});

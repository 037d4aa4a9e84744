import { http as mswHttp, HttpResponse, bypass, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import { toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/anvil.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

// msw stands only where a real node cannot be made to misbehave on demand: one endpoint's view of a block.
let svc: TestService;
let key: string;
const mock = setupServer();

beforeAll(async () => {
  // listening first: the service's RPC client must be built on the intercepted fetch
  mock.listen({ onUnhandledFrame: 'bypass' });
  svc = await startTestService({ env: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' } });
  key = (await svc.createKey('pro')).key;
});
afterAll(async () => {
  mock.close();
  await svc?.stop();
});

describe('a node that answers another hash for a block already reported', () => {
  it('puts nothing back while the transaction receipt still names that block', async () => {
    const body = { type: 'human', content: `rpc view ${Math.random()}`, contentType: 'text/plain' };
    const created = await call(svc.url, 'POST', '/v1/attestations', { key, body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const record = await call(svc.url, 'GET', `/v1/attestations/${created.body.uid}`);
    const height = toHex(BigInt(record.body.blockNumber));

    // that block, as a node behind or on a short-lived fork would answer it: another hash at the same height
    let struck = 0;
    mock.use(
      mswHttp.post(svc.chain.rpcUrl, async ({ request }) => {
        const rpc = (await request.clone().json()) as { method?: string; params?: unknown[] };
        if (rpc.method !== 'eth_getBlockByNumber' || rpc.params?.[0] !== height) return passthrough();
        const real = (await (await fetch(bypass(request))).json()) as { result: Record<string, unknown> | null };
        struck++;
        return HttpResponse.json({ ...real, result: real.result && { ...real.result, hash: `0x${'ab'.repeat(32)}` } });
      }),
    );
    await until(async () => (struck >= 2 ? true : undefined), 30_000); // the relayer looked twice, at least

    const again = await call(svc.url, 'GET', `/v1/attestations/${created.body.uid}`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ uid: created.body.uid, txHash: created.body.txHash });
    const [entry] = await svc.db
      .selectFrom('relayTransactions')
      .select(['status', 'reorgedAt'])
      .where('txHash', '=', created.body.txHash)
      .execute();
    expect(entry).toEqual({ status: 'mined', reorgedAt: null });
  }, 60_000);
});

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateChain, until, type PrivateChain } from '../support/anvil.ts';
import { call, fundedKey, startTestService, type TestService } from '../support/service.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { failoverTransport } from '../../src/chain/transport.ts';
import { freePort } from '../../src/system/ports.ts';

let chain: PrivateChain;
let proxy: TcpProxy;
let svc: TestService;
let relayer: string;
let key: string;

beforeAll(async () => {
  chain = await startPrivateChain({ blockTimeSeconds: 1 }); // a block a second: several transactions in flight
  proxy = await startTcpProxy(Number(new URL(chain.rpcUrl).port));
  const relayerKey = await fundedKey(chain.rpcUrl);
  relayer = privateKeyToAccount(relayerKey as `0x${string}`).address;
  // two endpoints of the same node, the preferred one through the proxy the test kills
  svc = await startTestService({
    env: {
      CHAIN_RPC_URL: `${proxy.url},${chain.rpcUrl}`,
      EAS_ADDRESS: chain.eas,
      SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
      RELAYER_PRIVATE_KEY: relayerKey,
      ANCHOR_INTERVAL: '0',
    },
  });
  key = (await svc.createKey('enterprise')).key;
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await proxy?.kill();
  await chain?.close();
});

const content = () => ({ type: 'ai', content: `failover ${randomUUID()}`, contentType: 'text/plain' });

describe('the preferred RPC endpoint dies during on-chain load', () => {
  it('no create fails, and every item is on chain exactly once', async () => {
    const requests = Array.from({ length: 48 }, (_, i) =>
      i % 8 === 7
        ? { path: '/v1/attestations/batch', body: { attestations: [content(), content(), content()] } }
        : { path: '/v1/attestations', body: content() },
    );
    const answers: Array<{ status: number; body: any }> = [];
    let next = 0;
    let killed = false;
    // eight clients at a time; the proxy dies once a third of the creates are answered
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < requests.length) {
          const request = requests[next++]!;
          answers.push(await call(svc.url, 'POST', request.path, { key, body: request.body }));
          if (!killed && answers.length >= requests.length / 3) {
            killed = true;
            // it did carry the relayer's broadcasts until now
            expect(proxy.calls('eth_sendRawTransaction')).toBeGreaterThan(0);
            await proxy.kill();
          }
        }
      }),
    );
    expect(killed).toBe(true);
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const uids = answers.flatMap((a) => (a.body.attestations ?? [a.body]).map((item: { uid: string }) => item.uid));
    expect(uids).toHaveLength(60);

    const confirmed = await until(async () => {
      const rows = await svc.db.selectFrom('attestations').select(['uid', 'status']).execute();
      return rows.length === 60 && rows.every((r) => r.status === 'confirmed') ? rows : undefined;
    }, 60_000);
    expect(confirmed.map((r) => r.uid).sort()).toEqual([...uids].sort());
    expect((await chain.attestedBy(relayer)).sort()).toEqual([...uids].sort());
    // the dead endpoint is ranked last; the chain stays available to on-chain creates
    const [dead, alive] = svc.infrastructure.chain.endpoints();
    expect(dead!.healthy).toBeLessThan(1);
    expect(alive!.healthy).toBe(1);
    // /healthz: the chain answers, one endpoint short (the probe runs every 2 s)
    await svc.infrastructure.chainHealth.check();
    const health = await call(svc.url, 'GET', '/healthz');
    expect(health.body.components).toMatchObject({ chain: 'ok', relayer: 'ok', rpc: 'degraded' });
    expect(health.body.reasons.rpc).toMatch(/^endpoint 1 \(127\.0\.0\.1:\d+\) failing or not checked/);
  }, 120_000);
});

describe('which failures move a request to the next endpoint', () => {
  /** A JSON-RPC endpoint of the test's own answering every other call with `reply`, and counting them. */
  async function endpoint(reply: (id: number) => { status: number; body: unknown }, on = { port: 0, chainId: '0x1' }) {
    let calls = 0;
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        const { id, method } = JSON.parse(text) as { id: number; method: string };
        // the chain id and block number answer truly, so the endpoint is checked and ranked
        if (method === 'eth_chainId') return void res.end(JSON.stringify({ jsonrpc: '2.0', id, result: on.chainId }));
        if (method === 'eth_blockNumber') return void res.end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x1' }));
        calls++;
        const { status, body } = reply(id);
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(on.port, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      calls: () => calls,
      close: () => new Promise((resolve) => server.close(resolve)),
    };
  }
  const rpcError = (code: number, message: string) => (id: number) => ({
    status: 200,
    body: { jsonrpc: '2.0', id, error: { code, message } },
  });
  const answer = (id: number) => ({ status: 200, body: { jsonrpc: '2.0', id, result: '0x2a' } });

  async function firstThenSecond(reply: Parameters<typeof endpoint>[0]) {
    const [first, second] = await Promise.all([endpoint(reply), endpoint(answer)]);
    const failover = failoverTransport([first.url, second.url]);
    await failover.open(1);
    const client = createPublicClient({ transport: failover.transport });
    const outcome = await client.getGasPrice().then(
      (value) => ({ value }),
      (error: Error) => ({ error }),
    );
    failover.stop();
    await Promise.all([first.close(), second.close()]);
    return { outcome, reachedSecond: second.calls() > 0 };
  }

  it('an HTTP error, a rate limit or a provider’s internal error: the next endpoint answers', async () => {
    for (const reply of [
      () => ({ status: 502, body: 'bad gateway' }),
      () => ({ status: 429, body: { message: 'Too Many Requests' } }),
      rpcError(-32005, 'limit exceeded'),
      rpcError(-32603, 'internal error'),
      rpcError(-32000, 'header not found'),
    ]) {
      const { outcome, reachedSecond } = await firstThenSecond(reply);
      expect(outcome).toEqual({ value: 42n });
      expect(reachedSecond).toBe(true);
    }
  });

  it('the node’s own answer (nonce too low, a revert) is final: no other endpoint is asked', async () => {
    for (const reply of [rpcError(-32000, 'nonce too low'), rpcError(3, 'execution reverted')]) {
      const { outcome, reachedSecond } = await firstThenSecond(reply);
      expect('error' in outcome).toBe(true);
      expect(reachedSecond).toBe(false);
    }
  });

  it('an endpoint that comes up on another chain after the boot is never used', async () => {
    const first = await endpoint(answer);
    const port = await freePort();
    const failover = failoverTransport([first.url, `http://127.0.0.1:${port}`]);
    try {
      expect(await failover.open(1)).toBe(1);
      expect(failover.status().map((e) => e.state)).toEqual(['ok', 'unchecked']);
      const late = await endpoint(answer, { port, chainId: '0x2' });
      await until(async () => (failover.status()[1]!.state === 'wrong-chain' ? true : undefined), 10_000);
      await first.close();
      const client = createPublicClient({ transport: failover.transport });
      await expect(client.getGasPrice()).rejects.toThrow();
      expect(late.calls()).toBe(0);
      await late.close();
    } finally {
      failover.stop();
    }
  });
});

// On-chain creates per second against anvil with 1 s blocks: coalescing on (up to 100 items per multiAttest) next
// to one transaction per request (RELAY_MAX_ITEMS_PER_TX=1), same chain, same run.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startDevChain } from '../src/chain/dev-chain.ts';

const SERVER_DIR = join(import.meta.dirname, '..');
const ANVIL_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export interface OnchainFigure {
  name: string;
  createsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function serve(env: NodeJS.ProcessEnv, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['../service/bin/attestation-service.mjs', 'serve'], {
    cwd: SERVER_DIR,
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  for (let i = 0; i < 200; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/readyz`)
        .then((r) => r.ok)
        .catch(() => false)
    )
      return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('service did not become ready');
}

async function fund(rpcUrl: string, address: string): Promise<void> {
  await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'anvil_setBalance',
      params: [address, '0x3635c9adc5dea00000'],
    }),
  });
}

/** Runs both configurations for `seconds` each against the same chain and databases made from `databaseFor`. */
export async function measureOnchain(
  databaseFor: (name: string) => Promise<string>,
  createKey: (databaseUrl: string) => Promise<string>,
  seconds: number,
): Promise<OnchainFigure[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-chain-'));
  const chain = await startDevChain({ dataDir: dir, deployerKey: ANVIL_KEY, blockTimeSeconds: 1 });
  const figures: OnchainFigure[] = [];
  try {
    for (const [name, maxItems] of [
      ['coalescing on (≤ 100 per multiAttest)', '100'],
      ['one transaction per request (baseline)', '1'],
    ] as const) {
      const databaseUrl = await databaseFor(`onchain_${maxItems}`);
      const key = `0x${randomBytes(32).toString('hex')}`;
      const { privateKeyToAccount } = await import('viem/accounts');
      await fund(chain.rpcUrl, privateKeyToAccount(key as `0x${string}`).address);
      const apiKey = await createKey(databaseUrl);
      const port = 18_900 + Math.floor(Math.random() * 90);
      const child = await serve(
        {
          DATABASE_URL: databaseUrl,
          CHAIN_RPC_URL: chain.rpcUrl,
          EAS_ADDRESS: chain.eas,
          SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
          RELAYER_PRIVATE_KEY: key,
          RELAY_MAX_ITEMS_PER_TX: maxItems,
        },
        port,
      );
      try {
        const result = await autocannon({
          url: `http://127.0.0.1:${port}`,
          connections: 50,
          duration: seconds,
          timeout: 120,
          requests: [
            {
              method: 'POST',
              setupRequest: (req) => ({
                ...req,
                path: '/v1/attestations',
                headers: { ...req.headers, authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
                body: JSON.stringify({
                  type: 'human',
                  content: randomBytes(16).toString('hex'),
                  contentType: 'text/plain',
                }),
              }),
            },
          ],
        });
        figures.push({
          name,
          createsPerSecond: Math.round(((result.requests.total - result.non2xx) / seconds) * 10) / 10,
          p50: result.latency.p50,
          p99: result.latency.p99,
          non2xx: result.non2xx,
        });
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    }
  } finally {
    await chain.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return figures;
}

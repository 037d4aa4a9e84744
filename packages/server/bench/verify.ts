// The verification app: badge and page requests per second against `serve` (API, worker and the app in
// one process, as `./dev start` runs them), next to the bare node:http baseline started in the same run.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { privateKeyToAccount } from 'viem/accounts';
import { startDevChain } from '../src/chain/dev-chain.ts';
import { systemClock } from '../src/clock.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createDatabase } from '../src/db/database.ts';
import { createPool } from '../src/db/sql.ts';
import { createKeyService } from '../src/keys/service.ts';
import { measure, type Figure } from './measure.ts';

const SERVER_DIR = join(import.meta.dirname, '..');
const ANVIL_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const COLD_UIDS = 6_000;

function child(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, args, {
    cwd: SERVER_DIR,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up`);
}

async function enterpriseKey(databaseUrl: string): Promise<string> {
  await applyMigrations(databaseUrl);
  const pool = createPool(databaseUrl, 1);
  try {
    return (
      await createKeyService(createDatabase(pool), systemClock).create({ tier: 'enterprise', account: 'bench-verify' })
    ).key;
  } finally {
    await pool.end();
  }
}

async function createOffchain(api: string, key: string, count: number): Promise<string[]> {
  const uids: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const bodies = Array.from({ length: Math.min(50, count - i) }, () => ({
      type: 'human',
      content: randomBytes(16).toString('hex'),
      contentType: 'text/plain',
      mode: 'offchain',
    }));
    const res = await fetch(`${api}/v1/attestations/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ attestations: bodies }),
    });
    uids.push(...((await res.json()) as { attestations: { uid: string }[] }).attestations.map((a) => a.uid));
  }
  return uids;
}

/** Badge JSON and SVG (one hot uid, and a new uid per request), a 304 revalidation and the page, with a baseline. */
export async function measureVerify(
  databaseFor: (name: string) => Promise<string>,
  seconds: number,
): Promise<Figure[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-verify-chain-'));
  const chain = await startDevChain({ dataDir: dir, deployerKey: ANVIL_KEY });
  const children: ChildProcess[] = [];
  try {
    const databaseUrl = await databaseFor('verify');
    const apiKey = await enterpriseKey(databaseUrl);
    const relayer = `0x${randomBytes(32).toString('hex')}`;
    await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'anvil_setBalance',
        params: [privateKeyToAccount(relayer as `0x${string}`).address, '0x3635c9adc5dea00000'],
      }),
    });
    const port = 19_000 + Math.floor(Math.random() * 400);
    const api = `http://127.0.0.1:${port}`;
    const app = `http://127.0.0.1:${port + 1}`;
    // TRUST_PROXY: each request comes from its own address, so neither the badge limit nor the API's anonymous
    // limit (which the app's reads pass through, X-Forwarded-For included) caps the figures
    const service = child(['../service/bin/attestation-service.mjs', 'serve'], {
      DATABASE_URL: databaseUrl,
      CHAIN_RPC_URL: chain.rpcUrl,
      EAS_ADDRESS: chain.eas,
      SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
      RELAYER_PRIVATE_KEY: relayer,
      PORT: String(port),
      VERIFY_PORT: String(port + 1),
      VERIFY_BASE_URL: app,
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'warn',
    });
    children.push(service);
    await until(async () => (await fetch(`${api}/readyz`)).ok && (await fetch(`${app}/healthz`)).ok, 'serve');
    const baseline = child(['bench/baseline-server.ts'], { PORT: String(port + 2) });
    children.push(baseline);
    await until(async () => (await fetch(`http://127.0.0.1:${port + 2}/`)).ok, 'baseline');

    const onchain = (await (
      await fetch(`${api}/v1/attestations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'human', content: 'bench badge', contentType: 'text/plain' }),
      })
    ).json()) as { uid: string };
    const cold = await createOffchain(api, apiKey, COLD_UIDS);
    const ip = () =>
      `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`;
    const etag = (await fetch(`${app}/api/attestation/${onchain.uid}`)).headers.get('etag')!;
    const hot = (path: string, headers: Record<string, string> = {}): autocannon.Options => ({
      duration: seconds,
      url: app,
      requests: [
        {
          method: 'GET',
          setupRequest: (req) => ({ ...req, path, headers: { ...req.headers, ...headers, 'x-forwarded-for': ip() } }),
        },
      ],
    });
    let next = 0;

    const figures: Figure[] = [];
    figures.push(
      await measure('baseline: bare node:http, fixed JSON', baseline.pid!, {
        duration: seconds,
        url: `http://127.0.0.1:${port + 2}`,
      }),
    );
    figures.push(
      await measure('badge JSON, on-chain uid (verdict cached)', service.pid!, hot(`/api/attestation/${onchain.uid}`)),
    );
    figures.push(
      await measure(
        'badge JSON, If-None-Match → 304',
        service.pid!,
        hot(`/api/attestation/${onchain.uid}`, { 'if-none-match': etag }),
      ),
    );
    figures.push(
      await measure(
        'badge SVG, on-chain uid (verdict cached)',
        service.pid!,
        hot(`/api/attestation/${onchain.uid}/badge.svg`),
      ),
    );
    figures.push(await measure('page `/<uid>`, on-chain (verdict cached)', service.pid!, hot(`/${onchain.uid}`)));
    figures.push(
      await measure(`badge JSON, a new off-chain uid each request (API read + signature + RPC)`, service.pid!, {
        duration: seconds,
        url: app,
        requests: [
          {
            method: 'GET',
            setupRequest: (req) => ({
              ...req,
              path: `/api/attestation/${cold[next++ % cold.length]}`,
              headers: { ...req.headers, 'x-forwarded-for': ip() },
            }),
          },
        ],
      }),
    );
    return figures;
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(
      children.map((c) => new Promise((r) => (c.exitCode === null ? c.once('exit', r) : r(undefined)))),
    );
    await chain.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The BENCHMARKS.md section. */
export function renderVerify(figures: Figure[], seconds: number): string {
  const baseline = figures[0]!;
  const rows = figures.map(
    (f) =>
      `| ${f.name} | ${f.requestsPerSecond.toLocaleString('en')} | ${(f.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)} | ${f.p50} | ${f.p99} | ${f.peakRssMb} | ${f.non2xx + f.errors} |`,
  );
  return `
## Verification app and badge

\`serve\` with the API, the worker and the verification app in one process (peak RSS is the whole process), 50
connections for ${seconds} s each, every request from its own client address; next to the bare \`node:http\` baseline
started for this section.

| scenario | req/s | × baseline | p50 ms | p99 ms | peak RSS MB | non-2xx + errors |
|---|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

- A verdict is kept 10 s per process, so an embedded badge costs the API and the chain one read each per 10 s
  whatever its traffic; browsers and CDNs keep it 60 s more (\`max-age=60\`, then a 304 on the ETag). The non-2xx
  of the 304 row are those 304s.
- A new uid costs an API read through the SDK (\`/trpc\`, served by the same process), the EIP-712 digest and
  the uid recomputed with viem, a libsecp256k1 signature recovery (viem's JavaScript one took ~11 ms of CPU here and
  held this figure to 44/s) and one \`getRevokeOffchain\` call to the chain's RPC.
`;
}

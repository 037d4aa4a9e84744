// Content Credentials per second through POST /v1/attestations/{uid}/content-credentials of a real `serve --api`, for
// a 1 MB JPEG and a 10 MB MP4, with the serving process's RSS sampled; beside, in the same run, c2pa-wasm signing the
// same asset in a bare script (bench/c2pa-bare-sign.ts) and a bare node:http echo of the same bytes
// (bench/c2pa-echo-server.ts). Prints the markdown rows. `node bench/content-credentials.ts` (DATABASE_URL or the
// machine's PostgreSQL; BENCH_SECONDS, default 10).
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { makeSigningChain } from '../src/credentials/c2pa/dev-ca.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { jpegOf, mp4Of } from './c2pa-assets.ts';
import { ownDataDir, rssMb, startChild } from './children.ts';
import { enterpriseKeys } from './keys.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Requests in flight: twice the service's C2PA_CONCURRENCY on this 2-core machine (1), so one always waits. */
const CLIENTS = 2;

interface Figure {
  name: string;
  perSecond: number;
  p50Ms: number;
  idleRssMb: number;
  peakRssMb: number;
}

const ASSETS = [
  { label: '1 MB JPEG', kind: 'jpeg', size: 1_000_000, type: 'image/jpeg', bytes: jpegOf(1_000_000) },
  { label: '10 MB MP4', kind: 'mp4', size: 10_000_000, type: 'video/mp4', bytes: mp4Of(10_000_000) },
];

/** `post` by CLIENTS loops for SECONDS, while the RSS of `pid` is sampled every 50 ms. */
async function load(name: string, pid: number, post: () => Promise<void>): Promise<Figure> {
  // warm: the signing threads' start (one per client) is not what is measured
  await Promise.all(Array.from({ length: CLIENTS }, post));
  await new Promise((r) => setTimeout(r, 500));
  const idle = rssMb(pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const t = performance.now();
      await post();
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, loop));
  clearInterval(sampler);
  latencies.sort((a, b) => a - b);
  return {
    name,
    perSecond: latencies.length / ((performance.now() - started) / 1000),
    p50Ms: latencies[Math.floor(latencies.length / 2)] ?? 0,
    idleRssMb: Math.round(idle),
    peakRssMb: Math.round(peak),
  };
}

function poster(url: string, bytes: Uint8Array, headers: Record<string, string>): () => Promise<void> {
  return async () => {
    const res = await fetch(url, { method: 'POST', headers, body: bytes as Uint8Array<ArrayBuffer> });
    const answer = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${Buffer.from(answer).toString().slice(0, 300)}`);
  };
}

/** The bare script, one thread, signing for SECONDS; its peak RSS sampled from here. */
async function bareSign(asset: (typeof ASSETS)[number], signerEnv: Record<string, string>): Promise<Figure> {
  const env = { ...signerEnv, ASSET: asset.kind, SIZE: String(asset.size), SECONDS: String(SECONDS) };
  const { child, match } = await startChild(['bench/c2pa-bare-sign.ts'], env, /\{"count".*\}/);
  child.kill();
  const run = JSON.parse(match[0]) as { count: number; seconds: number; idleRssMb: number; peakRssMb: number };
  return {
    name: `baseline: c2pa-wasm sign in a bare script (one thread), ${asset.label}`,
    perSecond: run.count / run.seconds,
    p50Ms: (run.seconds * 1000) / run.count, // one at a time: the mean is the latency
    idleRssMb: run.idleRssMb,
    peakRssMb: run.peakRssMb,
  };
}

/** Every row of the section, on a database of its own. */
export async function measureContentCredentials(
  makeDatabase: (name: string) => Promise<string>,
): Promise<{ figures: Figure[]; others: OthersFigure[] }> {
  const children: ChildProcess[] = [];
  const figures: Figure[] = [];
  let others: OthersFigure[] = [];
  try {
    const databaseUrl = await makeDatabase('c2pa');
    await applyMigrations(databaseUrl);
    const [key, quietReader, busyReader] = await enterpriseKeys(databaseUrl, 3, 'bench-c2pa');
    const { keyPem, chainPem } = await makeSigningChain({ caName: 'Bench CA' });
    const signerEnv = { C2PA_SIGNING_CERT: chainPem, C2PA_SIGNING_KEY: keyPem };
    const port = 19_200 + Math.floor(Math.random() * 500);
    const api = await startChild(
      ['../service/bin/attestation-service.mjs', 'serve', '--api'],
      { ...signerEnv, DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: 'warn', DATA_DIR: ownDataDir() },
      /attestation-service: API on/,
    );
    children.push(api.child);
    const echo = await startChild(['bench/c2pa-echo-server.ts'], {}, /listening (\d+)/);
    children.push(echo.child);
    const base = `http://127.0.0.1:${port}`;
    for (const asset of ASSETS) {
      const contentHash = `0x${createHash('sha256').update(asset.bytes).digest('hex')}`;
      const created = await fetch(`${base}/v1/attestations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'ai', contentHash, contentType: asset.type, mode: 'offchain' }),
      });
      const { uid } = (await created.json()) as { uid: string };
      const headers = { authorization: `Bearer ${key}`, 'content-type': asset.type };
      const route = `${base}/v1/attestations/${uid}/content-credentials`;
      figures.push(
        await load(`POST …/content-credentials, ${asset.label}`, api.child.pid!, poster(route, asset.bytes, headers)),
      );
      figures.push(await bareSign(asset, signerEnv));
      const echoUrl = `http://127.0.0.1:${echo.match[1]}/`;
      figures.push(
        await load(
          `baseline: bare node:http echo, ${asset.label}`,
          echo.child.pid!,
          poster(echoUrl, asset.bytes, headers),
        ),
      );
    }
    others = await othersWhileSigning(base, key!, [quietReader!, busyReader!]);
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
  return { figures, others };
}

interface OthersFigure {
  name: string;
  requests: number;
  p50Ms: number;
  p99Ms: number;
}

/** p50 and p99 of `get` called back to back for SECONDS. */
async function latencies(name: string, get: () => Promise<Response>): Promise<OthersFigure> {
  const times: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  while (performance.now() < deadline) {
    const t = performance.now();
    const res = await get();
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(times.length * q))]! * 10) / 10;
  return { name, requests: times.length, p50Ms: at(0.5), p99Ms: at(0.99) };
}

/** Another client's /healthz and record reads: with nothing signing, then while 50 MB MP4s sign one after another. */
async function othersWhileSigning(base: string, key: string, readerKeys: string[]): Promise<OthersFigure[]> {
  const asset = mp4Of(50_000_000);
  const contentHash = `0x${createHash('sha256').update(asset).digest('hex')}`;
  const created = await fetch(`${base}/v1/attestations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'ai', contentHash, contentType: 'video/mp4', mode: 'offchain' }),
  });
  const { uid } = (await created.json()) as { uid: string };
  // each phase reads with a key of its own: back-to-back reads would otherwise meet one key's per-minute limit
  const readers = (when: string, reader: string) => [
    latencies(`GET /healthz, ${when}`, () => fetch(`${base}/healthz`)),
    latencies(`GET /v1/attestations/:uid, ${when}`, () =>
      fetch(`${base}/v1/attestations/${uid}`, { headers: { authorization: `Bearer ${reader}` } }),
    ),
  ];
  const quiet = await Promise.all(readers('nothing signing (baseline)', readerKeys[0]!));
  let signing = true;
  let signed = 0;
  const signer = (async () => {
    const post = poster(`${base}/v1/attestations/${uid}/content-credentials`, asset, {
      authorization: `Bearer ${key}`,
      'content-type': 'video/mp4',
    });
    while (signing) {
      await post();
      signed++;
    }
  })();
  const busy = await Promise.all(readers('50 MB MP4s signing', readerKeys[1]!));
  signing = false;
  await signer;
  return [...quiet, ...busy.map((f) => ({ ...f, name: `${f.name} (${signed} signed)` }))];
}

/** The BENCHMARKS.md section. */
export function renderContentCredentials({ figures, others }: { figures: Figure[]; others: OthersFigure[] }): string {
  const rows = figures.map(
    (f) => `| ${f.name} | ${f.perSecond.toFixed(1)} | ${Math.round(f.p50Ms)} | ${f.idleRssMb} → ${f.peakRssMb} |`,
  );
  const otherRows = others.map((f) => `| ${f.name} | ${f.requests} | ${f.p50Ms} | ${f.p99Ms} |`);
  return `
## Content Credentials (same run)

\`serve --api\` signing C2PA manifests through \`POST /v1/attestations/{uid}/content-credentials\`
(C2PA_CONCURRENCY: its default, the cores less one) for a 1 MB JPEG and a 10 MB MP4, the RSS of the serving process sampled every 50 ms; beside it
c2pa-wasm signing the same asset in a bare script (one thread, no HTTP) and a bare node:http echo of the same bytes.
Client, service and signing threads share the machine's cores.

| scenario (${CLIENTS} clients, ${SECONDS} s) | credentials/s | p50 ms | RSS MB idle → peak |
|---|---:|---:|---:|
${rows.join('\n')}

Other clients while 50 MB assets sign (one client posting 50 MB MP4s back to back), beside the same reads with
nothing signing, one request at a time each:

| reads | requests | p50 ms | p99 ms |
|---|---:|---:|---:|
${otherRows.join('\n')}
`;
}

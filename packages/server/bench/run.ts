// pnpm bench: measures the API against a bare node:http baseline in the same run and writes BENCHMARKS.md.
import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { ownDataDir, startChild, V8_DEFAULT_HEAP, V8_DEFAULT_HEAP_FLAG } from './children.ts';
import { measure, type Figure } from './measure.ts';
import { render } from './report.ts';
import { benchDatabases, postgresServer } from './databases.ts';
import { measureSigning } from './signing.ts';
import { measureGas } from './gas.ts';
import { measureOnchain } from './onchain.ts';
import { enterpriseKeys } from './keys.ts';
import { measureWebhooks, renderWebhooks } from './webhooks.ts';
import { measureAuditExport, renderAuditExport } from './audit-export.ts';
import { measureVerify, renderVerify } from './verify.ts';
import { measureDashboard, renderDashboard } from './dashboard.ts';
import { measureAnchoring, renderAnchoring } from './anchoring.ts';
import { measureTracing, renderTracing } from './tracing.ts';
import { measurePairs, renderPairs, setUpHotPaths } from './hot-paths.ts';
import { measureContentCredentials, renderContentCredentials } from './content-credentials.ts';
import { measureCapacity, renderCapacity, type CapacityFigure } from './capacity.ts';

const SERVER_DIR = join(import.meta.dirname, '..');
const SEEDED = 100_000;
const PAIR_ROUNDS = 2;
const duration = Number(process.env.BENCH_SECONDS ?? 10);
const DEFAULT_HEAP = `(${V8_DEFAULT_HEAP})`;

async function main(): Promise<void> {
  const server = await postgresServer();
  const databases = benchDatabases(server.url);
  const children: ChildProcess[] = [];
  try {
    const setup = await setUpHotPaths(await databases.make('api'), SEEDED, children);
    const { databaseUrl, base, api, seedSeconds } = setup;
    const { readByUid, createOffchain } = setup.requests;

    const { child: baseline, match: listening } = await startChild(
      ['bench/baseline-server.ts'],
      { PORT: '0' },
      /listening (\d+)/,
    );
    children.push(baseline);
    const baselineUrl = `http://127.0.0.1:${listening[1]}`;

    const figures: Figure[] = [];
    const opts = { duration };

    figures.push(await measure('baseline: bare node:http, fixed JSON', baseline.pid!, { ...opts, url: baselineUrl }));
    figures.push(await measure('GET /healthz (router, no database)', api.pid!, { ...opts, url: `${base}/healthz` }));
    const pairs = await measurePairs(setup, duration, PAIR_ROUNDS);
    figures.push(...pairs.map((pair) => pair.service));
    api.kill('SIGTERM');

    // the same reads and creates against a `serve --api` whose young generation has V8's default limit here
    // (2 × 32 MB) rather than the 2 × 8 MB the bin gives an API process (bin/attestation-service.mjs)
    const defaultPort = Number(new URL(base).port) + 1;
    const { child: defaultHeap } = await startChild(
      [V8_DEFAULT_HEAP_FLAG, '../service/bin/attestation-service.mjs', 'serve', '--api'],
      {
        DATABASE_URL: databaseUrl,
        PORT: String(defaultPort),
        LOG_LEVEL: 'info',
        TRUST_PROXY: 'true',
        DATA_DIR: ownDataDir(),
      },
      /attestation-service: API on/,
    );
    children.push(defaultHeap);
    const defaultBase = `http://127.0.0.1:${defaultPort}`;
    figures.push(
      await measure(`GET /v1/attestations/:uid ${DEFAULT_HEAP}`, defaultHeap.pid!, {
        ...opts,
        url: defaultBase,
        requests: [readByUid],
      }),
    );
    figures.push(
      await measure(`POST /v1/attestations (off-chain) ${DEFAULT_HEAP}`, defaultHeap.pid!, {
        ...opts,
        url: defaultBase,
        requests: [createOffchain],
      }),
    );
    defaultHeap.kill('SIGTERM');

    const signing = await measureSigning();
    const gas = await measureGas();
    const capacity: CapacityFigure[] = [];
    for (let i = 0; i < 3; i++) capacity.push(await measureCapacity(await databases.make(`capacity_${i}`)));
    const onchain = await measureOnchain(
      (name) => databases.make(name),
      (url, count) => enterpriseKeys(url, count, 'bench-onchain'),
      duration,
    );
    const webhooks = await measureWebhooks((name) => databases.make(name));
    const auditExport = await measureAuditExport(await databases.make('audit'));
    const verify = await measureVerify((name) => databases.make(name), duration);
    const dashboard = await measureDashboard((name) => databases.make(name));
    const anchoring = await measureAnchoring((name) => databases.make(name));
    const tracing = await measureTracing((name) => databases.make(name), duration);
    const contentCredentials = await measureContentCredentials((name) => databases.make(name));
    const report = render({
      figures,
      signing,
      gas,
      onchain,
      seeded: SEEDED,
      seedSeconds,
      duration,
      machine: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`,
      database: process.env.DATABASE_URL ? "the machine's PostgreSQL" : 'embedded PostgreSQL',
    });
    await writeFile(
      join(SERVER_DIR, '../../BENCHMARKS.md'),
      report +
        renderPairs(pairs, duration, PAIR_ROUNDS) +
        renderCapacity(capacity) +
        renderWebhooks(webhooks) +
        renderVerify(verify, duration) +
        renderAuditExport(auditExport) +
        renderDashboard(dashboard) +
        renderAnchoring(anchoring) +
        renderTracing(tracing) +
        renderContentCredentials(contentCredentials),
    );
    console.log(report);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await databases.dropAll().catch(() => undefined);
    await server.close();
  }
}

await main();

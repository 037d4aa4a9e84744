// pnpm bench: measures the API against a bare node:http baseline in the same run and writes BENCHMARKS.md.
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { applyMigrations } from '../src/db/migrate.ts';
import { createDatabase } from '../src/db/database.ts';
import { createPool } from '../src/db/sql.ts';
import { systemClock } from '../src/clock.ts';
import { createKeyService } from '../src/keys/service.ts';
import { startChild, V8_DEFAULT_HEAP, V8_DEFAULT_HEAP_FLAG } from './children.ts';
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

const SERVER_DIR = join(import.meta.dirname, '..');
const SEEDED = 100_000;
const KEYS = 100;
const duration = Number(process.env.BENCH_SECONDS ?? 10);
const DEFAULT_HEAP = `(${V8_DEFAULT_HEAP})`;

async function main(): Promise<void> {
  const server = await postgresServer();
  const databases = benchDatabases(server.url);
  const children: ChildProcess[] = [];
  try {
    const databaseUrl = await databases.make('api');
    await applyMigrations(databaseUrl);
    const keyPool = createPool(databaseUrl, 1);
    const keyService = createKeyService(createDatabase(keyPool), systemClock);
    const keys: string[] = [];
    for (let i = 0; i < KEYS; i++)
      keys.push((await keyService.create({ tier: 'enterprise', account: `bench-${i % 10}` })).key);

    const apiPort = 18_500 + Math.floor(Math.random() * 400);
    const { child: api } = await startChild(
      ['../service/bin/attestation-service.mjs', 'serve', '--api'],
      { DATABASE_URL: databaseUrl, PORT: String(apiPort), LOG_LEVEL: 'info', TRUST_PROXY: 'true' },
      /attestation-service: API on/,
    );
    children.push(api);
    const base = `http://127.0.0.1:${apiPort}`;

    // one real attestation, whose signed package the seeded rows copy so reads return realistic bodies
    const sample = (await (
      await fetch(`${base}/v1/attestations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys[0]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'human', content: 'seed', contentType: 'text/plain', mode: 'offchain' }),
      })
    ).json()) as { uid: string };
    const seedStarted = performance.now();
    await keyPool.query(
      `INSERT INTO attestations (uid, account_id, api_key_id, type, mode, status, content_hash, content_type, chain_id, schema_uid, attester, offchain, created_at)
       SELECT '0x' || encode(sha256(('uid' || g)::bytea), 'hex'), a.account_id, a.api_key_id, CASE WHEN g % 3 = 0 THEN 'ai' ELSE 'human' END, 'offchain', 'confirmed',
              '0x' || encode(sha256(('content' || (g % 20000))::bytea), 'hex'), 'text/plain', a.chain_id, a.schema_uid, a.attester, a.offchain, now() - g * interval '1 second'
       FROM generate_series(1, ${SEEDED}) g, (SELECT * FROM attestations WHERE uid = $1) a`,
      [sample.uid],
    );
    await keyPool.query('ANALYZE attestations');
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const uids = (
      await keyPool.query<{ uid: string }>(`SELECT uid FROM attestations ORDER BY random() LIMIT 5000`)
    ).rows.map((r) => r.uid);
    const hashes = (
      await keyPool.query<{ content_hash: string }>(`SELECT DISTINCT content_hash FROM attestations LIMIT 5000`)
    ).rows.map((r) => r.content_hash);
    await keyPool.end();

    const { child: baseline, match: listening } = await startChild(
      ['bench/baseline-server.ts'],
      { PORT: '0' },
      /listening (\d+)/,
    );
    children.push(baseline);
    const baselineUrl = `http://127.0.0.1:${listening[1]}`;

    const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
    const ip = () =>
      `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`;
    const figures: Figure[] = [];
    const opts = { duration };

    figures.push(await measure('baseline: bare node:http, fixed JSON', baseline.pid!, { ...opts, url: baselineUrl }));
    figures.push(await measure('GET /healthz (router, no database)', api.pid!, { ...opts, url: `${base}/healthz` }));
    const readByUid: autocannon.Request = {
      method: 'GET',
      setupRequest: (req) => ({
        ...req,
        path: `/v1/attestations/${pick(uids)}`,
        headers: { ...req.headers, 'x-forwarded-for': ip() },
      }),
    };
    const searchByHash: autocannon.Request = {
      method: 'GET',
      setupRequest: (req) => ({
        ...req,
        path: `/v1/attestations?hash=${pick(hashes)}`,
        headers: { ...req.headers, 'x-forwarded-for': ip() },
      }),
    };
    const createOffchain: autocannon.Request = {
      method: 'POST',
      setupRequest: (req) => ({
        ...req,
        path: '/v1/attestations',
        headers: { ...req.headers, authorization: `Bearer ${pick(keys)}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'human',
          content: randomUUID() + randomBytes(8).toString('hex'),
          contentType: 'text/plain',
          mode: 'offchain',
        }),
      }),
    };
    figures.push(await measure('GET /v1/attestations/:uid', api.pid!, { ...opts, url: base, requests: [readByUid] }));
    figures.push(
      await measure(`GET /v1/attestations?hash= (${SEEDED.toLocaleString('en')} stored)`, api.pid!, {
        ...opts,
        url: base,
        requests: [searchByHash],
      }),
    );
    figures.push(
      await measure('POST /v1/attestations (off-chain)', api.pid!, { ...opts, url: base, requests: [createOffchain] }),
    );
    api.kill('SIGTERM');

    // the same reads and creates against a `serve --api` whose young generation has V8's default limit here
    // (2 × 32 MB) rather than the 2 × 8 MB the bin gives an API process (bin/attestation-service.mjs)
    const defaultPort = apiPort + 1;
    const { child: defaultHeap } = await startChild(
      [V8_DEFAULT_HEAP_FLAG, '../service/bin/attestation-service.mjs', 'serve', '--api'],
      { DATABASE_URL: databaseUrl, PORT: String(defaultPort), LOG_LEVEL: 'info', TRUST_PROXY: 'true' },
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
        renderWebhooks(webhooks) +
        renderVerify(verify, duration) +
        renderAuditExport(auditExport) +
        renderDashboard(dashboard) +
        renderAnchoring(anchoring) +
        renderTracing(tracing),
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

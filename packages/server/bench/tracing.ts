// The cost of tracing: `serve --api` with tracing off, on (exporting every span over OTLP to a sink in this process)
// and on with one trace in ten sampled; same tree, same load, rounds interleaved so that the machine's drift falls on
// every side alike.
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type autocannon from 'autocannon';
import pg from 'pg';
import { applyMigrations } from '../src/db/migrate.ts';
import { createDatabase } from '../src/db/database.ts';
import { createPool } from '../src/db/sql.ts';
import { systemClock } from '../src/clock.ts';
import { createKeyService } from '../src/keys/service.ts';
import { ownDataDir, startChild } from './children.ts';
import { measure, type Figure } from './measure.ts';

const SEEDED = 20_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

export interface TracingFigures {
  rounds: number;
  duration: number;
  /** Scenario → side (`off`, `on`) → a figure per round. */
  figures: Map<string, Map<string, Figure[]>>;
  spansBytes: number;
}

/** An OTLP/HTTP collector that takes every export and keeps only its size. */
async function startSink(): Promise<{ url: string; bytes: () => number; close(): void }> {
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    bytes: () => bytes,
    close: () => server.close(),
  };
}

/** Ten enterprise keys on a migrated database. */
async function makeKeys(databaseUrl: string): Promise<string[]> {
  await applyMigrations(databaseUrl);
  const pool = createPool(databaseUrl, 1);
  const keys: string[] = [];
  const service = createKeyService(createDatabase(pool), systemClock);
  for (let i = 0; i < 10; i++) keys.push((await service.create({ tier: 'enterprise', account: `trace-${i}` })).key);
  await pool.end();
  return keys;
}

/** SEEDED copies of one real attestation (made through the API, so reads return realistic bodies); uids to read. */
async function seed(databaseUrl: string, base: string, key: string): Promise<string[]> {
  const sample = (await (
    await fetch(`${base}/v1/attestations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'human', content: 'seed', contentType: 'text/plain', mode: 'offchain' }),
    })
  ).json()) as { uid: string };
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO attestations (uid, account_id, api_key_id, type, mode, status, content_hash, content_type, chain_id,
         schema_uid, attester, offchain, created_at)
       SELECT '0x' || encode(sha256(('uid' || g)::bytea), 'hex'), a.account_id, a.api_key_id, a.type, 'offchain',
         'confirmed', '0x' || encode(sha256(('content' || g)::bytea), 'hex'), 'text/plain', a.chain_id, a.schema_uid,
         a.attester, a.offchain, now() - g * interval '1 second'
       FROM generate_series(1, ${SEEDED}) g, (SELECT * FROM attestations WHERE uid = $1) a`,
      [sample.uid],
    );
    await db.query('ANALYZE attestations');
    const uids = await db.query<{ uid: string }>('SELECT uid FROM attestations ORDER BY random() LIMIT 2000');
    return uids.rows.map((r) => r.uid);
  } finally {
    await db.end();
  }
}

const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
const ip = () =>
  `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`;

function scenarios(base: string, data: { keys: string[]; uids: string[] }): Array<[string, autocannon.Options]> {
  return [
    ['GET /healthz', { url: `${base}/healthz` }],
    [
      'GET /v1/attestations/:uid',
      {
        url: base,
        requests: [
          {
            method: 'GET',
            setupRequest: (req) => ({
              ...req,
              path: `/v1/attestations/${pick(data.uids)}`,
              headers: { ...req.headers, 'x-forwarded-for': ip() },
            }),
          },
        ],
      },
    ],
    [
      'POST /v1/attestations (off-chain)',
      {
        url: base,
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => ({
              ...req,
              path: '/v1/attestations',
              headers: {
                ...req.headers,
                authorization: `Bearer ${pick(data.keys)}`,
                'content-type': 'application/json',
              },
              body: JSON.stringify({
                type: 'human',
                content: randomUUID() + randomBytes(8).toString('hex'),
                contentType: 'text/plain',
                mode: 'offchain',
              }),
            }),
          },
        ],
      },
    ],
  ];
}

export async function measureTracing(
  makeDatabase: (name: string) => Promise<string>,
  duration: number,
): Promise<TracingFigures> {
  const sink = await startSink();
  const children: ChildProcess[] = [];
  try {
    const port = 19_100 + Math.floor(Math.random() * 40) * 3;
    const sides: Array<{ name: string; base: string; pid: number; data: { keys: string[]; uids: string[] } }> = [];
    for (const [i, name] of ['off', 'on', 'sampled'].entries()) {
      const databaseUrl = await makeDatabase(`tracing_${name}`);
      const keys = await makeKeys(databaseUrl);
      const env: NodeJS.ProcessEnv = {
        DATABASE_URL: databaseUrl,
        PORT: String(port + i),
        LOG_LEVEL: 'info',
        TRUST_PROXY: 'true',
        DATA_DIR: ownDataDir(),
      };
      if (name !== 'off') env.OTEL_EXPORTER_OTLP_ENDPOINT = sink.url;
      if (name === 'sampled')
        Object.assign(env, { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' });
      const { child } = await startChild(['../service/bin/attestation-service.mjs', 'serve', '--api'], env, /API on/);
      children.push(child);
      const base = `http://127.0.0.1:${port + i}`;
      sides.push({ name, base, pid: child.pid!, data: { keys, uids: await seed(databaseUrl, base, keys[0]!) } });
    }
    const figures = new Map<string, Map<string, Figure[]>>();
    for (let round = 0; round < ROUNDS; round++)
      for (const side of round % 2 === 0 ? sides : [...sides].reverse())
        for (const [name, opts] of scenarios(side.base, side.data)) {
          const figure = await measure(name, side.pid, { ...opts, duration });
          const bySide = figures.get(name) ?? new Map<string, Figure[]>();
          bySide.set(side.name, [...(bySide.get(side.name) ?? []), figure]);
          figures.set(name, bySide);
        }
    await new Promise((r) => setTimeout(r, 6_000)); // the last batch of spans goes out
    return { rounds: ROUNDS, duration, figures, spansBytes: sink.bytes() };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    sink.close();
  }
}

export function renderTracing(result: TracingFigures): string {
  const mean = (f: Figure[], of: (x: Figure) => number) => f.reduce((sum, x) => sum + of(x), 0) / f.length;
  const each = (f: Figure[]) => f.map((x) => x.requestsPerSecond.toLocaleString('en')).join(' / ');
  const rows = [...result.figures].map(([name, bySide]) => {
    const [off, on, sampled] = [bySide.get('off')!, bySide.get('on')!, bySide.get('sampled')!];
    const rate = (f: Figure[]) => mean(f, (x) => x.requestsPerSecond);
    const cell = (f: Figure[]) => `${Math.round(rate(f)).toLocaleString('en')} (${each(f)})`;
    const p99 = (f: Figure[]) => Math.round(mean(f, (x) => x.p99));
    const failures = [...off, ...on, ...sampled].reduce((sum, f) => sum + f.non2xx + f.errors, 0);
    return `| ${name} | ${cell(off)} | ${cell(on)} | ${(rate(on) / rate(off)).toFixed(2)} | ${cell(sampled)} | ${(rate(sampled) / rate(off)).toFixed(2)} | ${p99(off)} / ${p99(on)} / ${p99(sampled)} | ${failures} |`;
  });
  return `
## Tracing

\`pnpm bench:tracing\`: \`serve --api\` with tracing off (no \`OTEL_*\` variable), on (\`OTEL_EXPORTER_OTLP_ENDPOINT\` set:
every request a trace, each span exported over OTLP/HTTP protobuf to a collector in the bench process that reads and
drops them, ${Math.round(result.spansBytes / 2 ** 20)} MiB in this run) and on with one trace in ten
(\`OTEL_TRACES_SAMPLER=parentbased_traceidratio\`, \`OTEL_TRACES_SAMPLER_ARG=0.1\`); same tree, each on a database of its
own with ${SEEDED.toLocaleString('en')} attestations, 50 connections, ${result.duration} s a figure, ${result.rounds} rounds
interleaved (the figures of each round in brackets).

| scenario | off req/s | on req/s | on ÷ off | 10 % req/s | 10 % ÷ off | p99 ms off / on / 10 % | non-2xx + errors |
|---|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}
`;
}

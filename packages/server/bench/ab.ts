// pnpm bench:ab BASE_DIR: the API's read, search and create figures of this checkout next to another checkout's
// (a tag or branch laid out with `git worktree add`), in one run, rounds interleaved so that the machine's drift
// falls on both alike. Each side is its own launcher, database and keys; both get the same requests.
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type autocannon from 'autocannon';
import pg from 'pg';
import { ownDataDir, startChild } from './children.ts';
import { benchDatabases } from './databases.ts';
import { measure, type Figure } from './measure.ts';
import { sampleAttestation, seedAttestations } from './seed.ts';

const THIS_TREE = resolve(import.meta.dirname, '../../..');
const SEEDED = 20_000;
const KEYS = 10;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const duration = Number(process.env.BENCH_SECONDS ?? 10);

interface Side {
  name: string;
  base: string;
  pid: number;
  keys: string[];
  uids: string[];
  hashes: string[];
}

const launcher = (tree: string) => join(tree, 'packages/service/bin/attestation-service.mjs');

/** `serve --api` of one tree on a fresh database, seeded with SEEDED attestations and KEYS enterprise keys. */
async function startSide(
  name: string,
  tree: string,
  databaseUrl: string,
  port: number,
): Promise<Side & { child: ChildProcess }> {
  // a data directory of its own: a launcher keeps its state there, which the other side must not find
  const env = {
    DATABASE_URL: databaseUrl,
    DATA_DIR: ownDataDir(),
    PORT: String(port),
    LOG_LEVEL: 'info',
    TRUST_PROXY: 'true',
  };
  const migrated = await promisify(execFile)(process.execPath, [launcher(tree), 'migrate'], {
    env: { ...process.env, ...env },
  }).catch((error: { stderr?: string }) => ({ stdout: '', stderr: error.stderr ?? String(error) }));
  if (migrated.stderr.includes('Error')) throw new Error(`${name}: migrate failed: ${migrated.stderr}`);
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [launcher(tree), 'keys', 'create', '--tier', 'enterprise', '--account', `ab-${i}`, '--json'],
      { env: { ...process.env, ...env } },
    );
    keys.push((JSON.parse(stdout.trim().split('\n').at(-1)!) as { key: string }).key);
  }
  const { child } = await startChild([launcher(tree), 'serve', '--api'], env, /attestation-service: API on/);
  const base = `http://127.0.0.1:${port}`;
  const sampleUid = await sampleAttestation(base, keys[0]!);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await seedAttestations(db, sampleUid, SEEDED, 4000);
    const uids = (await db.query<{ uid: string }>('SELECT uid FROM attestations ORDER BY random() LIMIT 2000')).rows;
    const hashes = (await db.query<{ h: string }>('SELECT DISTINCT content_hash AS h FROM attestations LIMIT 2000'))
      .rows;
    return { name, base, pid: child.pid!, keys, child, uids: uids.map((r) => r.uid), hashes: hashes.map((r) => r.h) };
  } finally {
    await db.end();
  }
}

const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
const ip = () =>
  `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`;

/** The scenarios, as pnpm bench runs them, against one side. */
function scenarios(side: Side): Array<[string, autocannon.Options]> {
  const get = (path: () => string): autocannon.Request => ({
    method: 'GET',
    setupRequest: (req) => ({ ...req, path: path(), headers: { ...req.headers, 'x-forwarded-for': ip() } }),
  });
  const create: autocannon.Request = {
    method: 'POST',
    setupRequest: (req) => ({
      ...req,
      path: '/v1/attestations',
      headers: { ...req.headers, authorization: `Bearer ${pick(side.keys)}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'human',
        content: randomUUID() + randomBytes(8).toString('hex'),
        contentType: 'text/plain',
        mode: 'offchain',
      }),
    }),
  };
  return [
    ['GET /healthz', { url: `${side.base}/healthz` }],
    ['GET /v1/attestations/:uid', { url: side.base, requests: [get(() => `/v1/attestations/${pick(side.uids)}`)] }],
    [
      'GET /v1/attestations?hash=',
      { url: side.base, requests: [get(() => `/v1/attestations?hash=${pick(side.hashes)}`)] },
    ],
    ['POST /v1/attestations (off-chain)', { url: side.base, requests: [create] }],
  ];
}

async function main(): Promise<void> {
  const baseTree = resolve(process.argv[2] ?? process.env.BENCH_AB_BASE ?? '');
  if (!existsSync(launcher(baseTree)))
    throw new Error('usage: pnpm bench:ab BASE_DIR (a checkout with its dependencies installed)');
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error('set DATABASE_URL to a PostgreSQL server the bench may create databases on');
  const databases = benchDatabases(serverUrl);
  const children: ChildProcess[] = [];
  try {
    const port = 18_900 + Math.floor(Math.random() * 50) * 2;
    const sides = [
      await startSide('base', baseTree, await databases.make('ab_base'), port),
      await startSide('this', THIS_TREE, await databases.make('ab_this'), port + 1),
    ];
    children.push(...sides.map((s) => s.child));
    const results = new Map<string, Figure[]>();
    for (let round = 0; round < ROUNDS; round++) {
      // alternate which side goes first, so neither always runs on the warmer machine
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        for (const [name, opts] of scenarios(side)) {
          const figure = await measure(name, side.pid, { ...opts, duration });
          const key = `${name}|${side.name}`;
          results.set(key, [...(results.get(key) ?? []), figure]);
        }
      }
    }
    const lines = [
      '| scenario | base req/s | this req/s | this ÷ base | base p99 ms | this p99 ms | non-2xx + errors |',
      '|---|---:|---:|---:|---:|---:|---:|',
    ];
    for (const [name] of scenarios(sides[0]!)) {
      const [a, b] = ['base', 'this'].map((s) => results.get(`${name}|${s}`)!);
      const mean = (f: Figure[], pick: (x: Figure) => number) => f.reduce((sum, x) => sum + pick(x), 0) / f.length;
      const [ra, rb] = [mean(a!, (f) => f.requestsPerSecond), mean(b!, (f) => f.requestsPerSecond)];
      const failures = [...a!, ...b!].reduce((sum, f) => sum + f.non2xx + f.errors, 0);
      const each = (f: Figure[]) => f.map((x) => x.requestsPerSecond.toLocaleString('en')).join(' / ');
      lines.push(
        `| ${name} | ${Math.round(ra).toLocaleString('en')} (${each(a!)}) | ${Math.round(rb).toLocaleString('en')} (${each(b!)}) | ${(rb / ra).toFixed(2)} | ${Math.round(mean(a!, (f) => f.p99))} | ${Math.round(mean(b!, (f) => f.p99))} | ${failures} |`,
      );
    }
    console.log(lines.join('\n'));
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await databases.dropAll();
  }
}

await main();

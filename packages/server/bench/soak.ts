// pnpm bench:soak: rounds of mixed load against `serve` (API, worker, relayer and verification app in one
// process) and against `serve --api`, the resident set after each round; fails when it keeps growing or passes the
// targets, and writes the "Memory" section of BENCHMARKS.md.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { privateKeyToAccount } from 'viem/accounts';
import { startDevChain } from '../src/chain/dev-chain.ts';
import { collectGarbage, rssMb, startChild } from './children.ts';
import { enterpriseKeys } from './keys.ts';
import { benchDatabases } from './databases.ts';
import { runSection } from './section.ts';
import { apiRequest, createSeed, until, verifyRequest, warmUp } from './soak-load.ts';
import { CONNECTIONS, GLIBC_ARENAS, renderSoak, REQUESTS, ROUNDS, verdict, type SoakRun } from './soak-report.ts';

const SERVICE_DIR = join(import.meta.dirname, '../../service');
const ANVIL_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
/** Node flags for the served processes (say `--heapsnapshot-signal=SIGUSR2` or `--trace-gc` while investigating). */
const EXTRA_NODE_ARGS = (process.env.SOAK_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
const COMPARE = (process.env.SOAK_COMPARE ?? '').split(/\s+/).filter(Boolean);
/**
 * Peak RSS: `serve`, and `serve --api` with nothing held. The API's held answers (docs/operations.md, "Answers held")
 * add their bytes on top: the soak's 3,000 records and 3,000 hashes, about 2.5 KB an answer, take 12–13 MB of RSS
 * beside the same process with none held (docs/decisions.md, "Memory").
 */
const TARGET_MB = { all: 300, api: 200, heldAnswers: 20 };
/**
 * The baseline: V8's own old-generation growth, glibc's own arena count (8 per core) and its own moving mmap threshold,
 * which the bin overrides (a GLIBC_TUNABLES of the operator's leaves glibc's settings to them).
 */
const DEFAULT_FLAGS = ['--heap-growing-percent=0'];
const DEFAULTS = "(baseline: V8's and glibc's defaults)";

/** A served process under soak, and what its rounds measured. */
interface Soaked {
  run: SoakRun;
  pid: number;
  /** The process's inspector, for a full collection after each round. */
  inspectPort: number;
  loads: Array<{ url: string; connections: number; request: autocannon.Request }>;
}

/**
 * What autovacuum does for a production database, done before the rounds and after each: PostgreSQL on the CI
 * machine runs with autovacuum off, and a soak database it never analyzed kept the plans of its first minutes while
 * the creates added rows and the anchor runs left each anchored row's old version: the rounds slowed from about 170
 * requests a second to 50, and after one `VACUUM ANALYZE` answered 500 to 800.
 */
async function vacuumAnalyze(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}

/** One round of load against one process: its peak RSS during it and its RSS two seconds after. */
async function round({ run, pid, inspectPort, loads }: Soaked): Promise<void> {
  let peak = rssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
  const started = performance.now();
  const results = await Promise.all(
    loads.map(({ url, connections, request }) =>
      autocannon({ url, connections, amount: Math.round((REQUESTS * connections) / CONNECTIONS), requests: [request] }),
    ),
  ).finally(() => clearInterval(sampler));
  const seconds = (performance.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, 2000));
  run.after.push(Math.round(rssMb(pid)));
  await collectGarbage(inspectPort);
  await new Promise((r) => setTimeout(r, 1000)); // V8 gives freed pages back in the background
  run.collected.push(Math.round(rssMb(pid)));
  run.peak.push(Math.round(peak));
  // over the round's wall time: autocannon's per-second samples are few and whole in a round of a few seconds
  run.requestsPerSecond.push(Math.round(results.reduce((sum, r) => sum + r.requests.total, 0) / seconds));
  // 429s are the limits doing their job on the creates' keys; anything else is a failure
  const sum = (count: (r: autocannon.Result) => number) => results.reduce((total, r) => total + count(r), 0);
  const [errors, timeouts, serverErrors] = [sum((r) => r.errors), sum((r) => r.timeouts), sum((r) => r['5xx'])];
  run.failed += errors + timeouts + serverErrors;
  console.error(
    `${run.name} round ${run.after.length}: ${run.requestsPerSecond.at(-1)} req/s, ` +
      `peak ${run.peak.at(-1)} MB, after ${run.after.at(-1)} MB (${run.collected.at(-1)} collected), ${errors} errors, ${timeouts} timeouts, ` +
      `${serverErrors} 5xx`,
  );
}

async function measureSoak(databaseFor: (name: string) => Promise<string>): Promise<SoakRun[]> {
  // what `./dev start` runs: every source from the compile cache, so no process loads the type stripper
  execFileSync(process.execPath, [join(SERVICE_DIR, 'scripts/warm-compile-cache.mjs')], { stdio: 'ignore' });
  const dir = await mkdtemp(join(tmpdir(), 'bench-soak-chain-'));
  const chain = await startDevChain({ dataDir: dir, deployerKey: ANVIL_KEY });
  const children: ChildProcess[] = [];
  try {
    const databaseUrl = await databaseFor('soak');
    // two keys in each of ten accounts, so the creates stay under the account ceilings (docs/decisions.md)
    const keys: string[] = [];
    for (let account = 0; account < 10; account++)
      keys.push(...(await enterpriseKeys(databaseUrl, 2, `bench-soak-${account}`)));
    // a relayer key of its own for each process, so two relayers never race for one nonce
    const fundedKey = async () => {
      const key = `0x${randomBytes(32).toString('hex')}`;
      await fetch(chain.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'anvil_setBalance',
          params: [privateKeyToAccount(key as `0x${string}`).address, '0x3635c9adc5dea00000'],
        }),
      });
      return key;
    };
    const port = 19_500 + Math.floor(Math.random() * 400);
    const env = {
      DATABASE_URL: databaseUrl,
      CHAIN_RPC_URL: chain.rpcUrl,
      EAS_ADDRESS: chain.eas,
      SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'info',
    };
    // `serve` with the bin's settings, the same with V8's and glibc's own (the baseline), and `serve --api` with and
    // without the fixed mmap threshold, all started first and loaded in turn, round by round, so whatever else the
    // machine runs weighs on each alike
    const variants = [
      { name: '`serve` (API, worker, relayer, verification app)', node: [], env: {}, all: true, baseline: false },
      {
        name: `\`serve\` ${DEFAULTS}`,
        node: DEFAULT_FLAGS,
        env: { GLIBC_TUNABLES: `glibc.malloc.arena_max=${GLIBC_ARENAS}` },
        all: true,
        baseline: true,
      },
      {
        name: '`serve --api`',
        node: [],
        env: {},
        all: false,
        baseline: false,
        target: TARGET_MB.api + TARGET_MB.heldAnswers,
      },
      // the bin's settings but glibc's own moving mmap threshold: what the fixed one saves, and what it costs
      {
        name: "`serve --api` (baseline: glibc's moving mmap threshold)",
        node: [],
        env: { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' },
        all: false,
        baseline: true,
      },
      // no answers held: held to the API's own target, and what the held answers' bytes add beside it
      {
        name: '`serve --api` with no answers held (`ANSWER_CACHE_MB=0`)',
        node: [],
        env: { ANSWER_CACHE_MB: '0' },
        all: false,
        baseline: false,
        target: TARGET_MB.api,
      },
      // SOAK_COMPARE="<node flags>": one more `serve`, with those flags, measured beside the others (while tuning)
      ...(COMPARE.length > 0
        ? [{ name: `\`serve\` ${COMPARE.join(' ')}`, node: COMPARE, env: {}, all: true, baseline: true }]
        : []),
    ];
    const started: Array<{
      variant: (typeof variants)[number];
      pid: number;
      idle: number;
      api: string;
      app: string;
      inspectPort: number;
    }> = [];
    for (const [i, variant] of variants.entries()) {
      const at = port + 3 * i;
      const api = `http://127.0.0.1:${at}`;
      const app = `http://127.0.0.1:${at + 1}`;
      const { child } = await startChild(
        [
          `--inspect=127.0.0.1:${at + 2}`,
          ...EXTRA_NODE_ARGS,
          ...variant.node,
          '../service/bin/attestation-service.mjs',
          'serve',
          ...(variant.all ? [] : ['--api']),
        ],
        {
          ...env,
          ...variant.env,
          RELAYER_PRIVATE_KEY: await fundedKey(),
          PORT: String(at),
          VERIFY_PORT: String(at + 1),
          VERIFY_BASE_URL: app,
        },
        /attestation-service: API on/,
      );
      children.push(child);
      await until(
        async () => (await fetch(`${api}/readyz`)).ok && (!variant.all || (await fetch(`${app}/healthz`)).ok),
        'serve',
      );
      started.push({ variant, pid: child.pid!, idle: Math.round(rssMb(child.pid!)), api, app, inspectPort: at + 2 });
    }
    const seed = await createSeed(started[0]!.api, keys[0]!, 3000);
    for (const { api } of started) await warmUp(api, seed);
    await vacuumAnalyze(databaseUrl);
    const soaked: Soaked[] = started.map(({ variant, pid, idle, api, app, inspectPort }) => ({
      pid,
      inspectPort,
      run: {
        name: variant.name,
        baseline: variant.baseline,
        target: variant.target ?? (variant.all ? TARGET_MB.all : TARGET_MB.api),
        idle,
        after: [],
        collected: [],
        peak: [],
        requestsPerSecond: [],
        failed: 0,
      },
      loads: [
        {
          url: api,
          connections: CONNECTIONS - (variant.all ? 10 : 0),
          request: apiRequest(keys, seed.uids, seed.hashes),
        },
        ...(variant.all ? [{ url: app, connections: 10, request: verifyRequest(seed.uids.slice(0, 500)) }] : []),
      ],
    }));
    for (let i = 0; i < ROUNDS; i++) {
      for (const soakedProcess of soaked) await round(soakedProcess);
      await vacuumAnalyze(databaseUrl);
    }
    const runs = soaked.map(({ run }) => run);
    return runs;
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(
      children.map((c) => new Promise((r) => (c.exitCode === null ? c.once('exit', r) : r(undefined)))),
    );
    await chain.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  let failed: string[] = [];
  const section = async (databaseFor: (name: string) => Promise<string>) => {
    const started = loadavg()[0]!;
    const runs = await measureSoak(databaseFor);
    failed = runs.filter((run) => !run.baseline).flatMap(verdict);
    return renderSoak(runs, `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${started.toFixed(1)}`);
  };
  // SOAK_DRY=1: print the section only, BENCHMARKS.md untouched (while investigating)
  if (process.env.SOAK_DRY) {
    const databases = benchDatabases(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
    console.log(await section((name) => databases.make(name)).finally(() => databases.dropAll()));
  } else await runSection('## Memory', section);
  for (const problem of failed) console.error(problem);
  if (failed.length > 0) process.exitCode = 1;
}

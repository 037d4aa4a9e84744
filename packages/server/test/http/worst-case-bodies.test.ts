// The class test of "no request costs more than its size" (docs/decisions.md, "Input rules"): every procedure of the
// router on both surfaces (REST and /trpc, the dashboard's included) and every endpoint of the sign-in surface, derived
// from the router and from better-auth's own endpoint list, gets worst-case inputs up to the body limit, against
// `serve` in a child process held to a 512 MB heap, while a poller measures /healthz. A new procedure is covered the
// day it lands.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AUTH_BASE_PATH } from '../../src/dashboard/auth.ts';
import { createDatabase, type Db } from '../../src/db/database.ts';
import { createPool, type Pool } from '../../src/db/sql.ts';
import { freePort } from '../../src/system/ports.ts';
import { runCli, serveChild } from '../support/cli.ts';
import { createTestDatabase } from '../support/database.ts';
import { fundedKey, randomIp } from '../support/service.ts';
import { cookieOf } from '../dashboard/support.ts';

import {
  BASELINE_CREATES,
  BODIES,
  LIMIT,
  QUERY_INPUTS,
  QUERY_STRINGS,
  restTargets,
  signInTargets,
  trpcTargets,
  type Payload,
  type Target,
} from './worst-case-inputs.ts';

interface Answer {
  target: string;
  payload: string;
  rule: boolean;
  takesInput: boolean;
  judged: boolean;
  status: number;
  ms: number;
  at: number;
  /** The time the service's main thread (its event loop) ran while this request was served. */
  cpuMs: number;
}

/** How long a process's main thread has run, in ms (the first field of schedstat is in ns, unlike stat's ticks). */
const mainThreadMs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;

/**
 * The most a worst-case request may cost the event loop: reading and parsing a flat 1 MiB body, with room for a CPU
 * shared with other test files (a walk that was quadratic in the depth took 53 s for 200 KB).
 */
const MAX_REQUEST_CPU_MS = 100;

describe('no request costs more than its size, on every surface', () => {
  let child: ChildProcess;
  let base: string;
  let headers: Record<string, string>;
  let pool: Pool;
  let db: Db;
  const answers: Answer[] = [];
  const healthz: number[] = [];
  const healthzAt: number[] = [];
  const baselineHealthz: number[] = [];

  beforeAll(async () => {
    const chain = inject('chain');
    const port = await freePort();
    base = `http://localhost:${port}`;
    const databaseUrl = await createTestDatabase();
    pool = createPool(databaseUrl, 2);
    db = createDatabase(pool);
    const env = {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      SERVICE_SECRET: randomBytes(32).toString('base64'),
      CHAIN_RPC_URL: chain.rpcUrl,
      EAS_ADDRESS: chain.eas,
      SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
      RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
      PUBLIC_BASE_URL: base,
      HOST: '127.0.0.1',
      TRUST_PROXY: 'true',
      DASHBOARD_SIGNUP: 'open',
      LOG_LEVEL: 'silent',
      ANCHOR_INTERVAL: '0',
    };
    // the API, worker and verification app in one process, held to the heap a small container would give it
    child = await serveChild({ ...env, NODE_OPTIONS: '--max-old-space-size=512' }, port);

    const account = `worst-${randomBytes(4).toString('hex')}`;
    const created = await runCli(env, 'keys', 'create', '--tier', 'enterprise', '--account', account, '--json');
    expect(created.code, created.stderr).toBe(0);
    await runCli(env, 'accounts', 'set-plan', account, 'enterprise');
    const key = JSON.parse(created.stdout.trim().split('\n').at(-1)!).key as string;

    const origin = { origin: base, 'content-type': 'application/json' };
    const email = `${account}@example.com`;
    const signUp = await fetch(`${base}${AUTH_BASE_PATH}/sign-up/email`, {
      method: 'POST',
      headers: { ...origin, 'x-forwarded-for': randomIp() },
      body: JSON.stringify({ email, password: 'a long enough password', name: 'Worst Case' }),
    });
    expect(signUp.status).toBe(200);
    // open sign-up answers without a session, and opening an account takes a confirmed address (as its link does)
    await db.updateTable('users').set({ emailVerified: true }).where('email', '=', email).execute();
    const signIn = await fetch(`${base}${AUTH_BASE_PATH}/sign-in/email`, {
      method: 'POST',
      headers: { ...origin, 'x-forwarded-for': randomIp() },
      body: JSON.stringify({ email, password: 'a long enough password' }),
    });
    expect(signIn.status).toBe(200);
    const cookie = cookieOf(signIn);
    const opened = await fetch(`${base}/trpc/dashboard.accounts.create`, {
      method: 'POST',
      headers: { ...origin, cookie },
      body: JSON.stringify({ name: `${account}-dash` }),
    });
    expect(opened.status).toBe(200);
    const accountId = ((await opened.json()) as { result: { data: { id: string } } }).result.data.id;
    headers = { authorization: `Bearer ${key}`, cookie, origin: base, 'x-account-id': accountId };
  }, 120_000);

  afterAll(async () => {
    child?.kill('SIGKILL');
    await pool?.end();
  });

  async function send(target: Target, payload: Payload, asBody: boolean): Promise<void> {
    const init: RequestInit & { headers: Record<string, string> } = {
      method: target.method,
      headers: { ...headers, 'x-forwarded-for': randomIp() },
    };
    let url = `${base}${target.url}`;
    if (asBody) {
      init.body = payload.text;
      init.headers['content-type'] = 'application/json';
    } else if (target.query === 'trpc') {
      url += `?input=${encodeURIComponent(payload.text)}`;
    } else {
      url += `?${payload.text}`;
    }
    const started = performance.now();
    const cpuBefore = mainThreadMs(child.pid!);
    const res = await fetch(url, init);
    await res.arrayBuffer();
    const cpuMs = mainThreadMs(child.pid!) - cpuBefore;
    const { rule } = payload;
    const answer = {
      target: target.name,
      payload: payload.name,
      rule,
      takesInput: target.takesInput,
      judged: target.judged,
    };
    answers.push({ ...answer, status: res.status, ms: performance.now() - started, at: started, cpuMs });
  }

  /** Samples /healthz every 20 ms while `work` runs, into `into` (with each sample's start, for the report). */
  async function pollHealthzWhile(work: () => Promise<void>, into: number[]): Promise<void> {
    let running = true;
    const poller = (async () => {
      while (running) {
        const started = performance.now();
        const res = await fetch(`${base}/healthz`);
        await res.arrayBuffer();
        into.push(performance.now() - started);
        if (into === healthz) healthzAt.push(started);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      await work();
    } finally {
      running = false;
      await poller;
    }
  }

  /** An off-chain create of (almost) 1 MiB of content: the largest request the API serves as intended. */
  async function createLegitimately(): Promise<void> {
    const content = `${randomBytes(8).toString('hex')}${'x'.repeat(LIMIT - 200)}`;
    const res = await fetch(`${base}/v1/attestations`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'x-forwarded-for': randomIp() },
      body: JSON.stringify({ type: 'human', content, contentType: 'text/plain', mode: 'offchain' }),
    });
    expect(res.status).toBe(201);
    await res.arrayBuffer();
  }

  it('answers every worst-case input with a 4xx (or, where a procedure takes no input, ignores it)', async () => {
    const targets = [...restTargets, ...trpcTargets, ...signInTargets(db)];
    expect(restTargets.length).toBeGreaterThan(5);
    expect(trpcTargets.length).toBeGreaterThan(20);
    expect(targets.length).toBeGreaterThan(60);
    const jobs: Array<() => Promise<void>> = [];
    for (const target of targets) {
      if (target.method === 'GET') {
        const inputs = target.query === 'trpc' ? QUERY_INPUTS : QUERY_STRINGS;
        for (const payload of inputs) jobs.push(() => send(target, payload, false));
      } else {
        for (const payload of BODIES) jobs.push(() => send(target, payload, true));
      }
    }

    // the baseline, same run: what legitimate requests of the same size do to /healthz on this machine now
    await pollHealthzWhile(async () => {
      for (let i = 0; i < BASELINE_CREATES; i++) await createLegitimately();
    }, baselineHealthz);
    await pollHealthzWhile(async () => {
      for (const job of jobs) await job();
    }, healthz);

    const failures = answers.filter((a) => a.status >= 500 || a.status === 429);
    expect(failures, 'no 5xx, and no 429: each input was judged, not turned away by a limit').toEqual([]);
    const refusedByRule = answers.filter((a) => a.rule && a.judged);
    expect(refusedByRule.length).toBeGreaterThan(100);
    expect(refusedByRule.filter((a) => a.status !== 400)).toEqual([]);
    const withInput = answers.filter((a) => a.takesInput);
    expect(withInput.filter((a) => a.status < 400)).toEqual([]);
    const costliest = [...answers].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 3);
    expect(costliest[0]!.cpuMs, JSON.stringify(costliest)).toBeLessThan(MAX_REQUEST_CPU_MS);
  }, 300_000);

  it('kept /healthz under 100 ms all along, or no slower than legitimate 1 MiB requests make it', () => {
    expect(healthz.length).toBeGreaterThan(20);
    expect(baselineHealthz.length).toBeGreaterThan(5);
    const percentile = (samples: number[], p: number) => {
      const sorted = [...samples].sort((a, b) => a - b);
      return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
    };
    const worst = healthz.indexOf(Math.max(...healthz));
    const during = answers
      .filter((a) => a.at <= healthzAt[worst]! + healthz[worst]! && a.at + a.ms >= healthzAt[worst]!)
      .map((a) => `${a.target} with ${a.payload}: ${Math.round(a.ms)} ms, ${a.cpuMs.toFixed(1)} ms of CPU`);
    const p95 = percentile(healthz, 0.95);
    const baselineP95 = percentile(baselineHealthz, 0.95);
    const summary =
      `worst-case p50 ${percentile(healthz, 0.5).toFixed(1)}, p95 ${p95.toFixed(1)}, max ${healthz[worst]!.toFixed(1)} ms ` +
      `over ${healthz.length}; legitimate 1 MiB creates p95 ${baselineP95.toFixed(1)} ms; in flight at the max: ${during.join('; ')}`;
    // the CPU bound above is the strict one; a machine busy with other work slows every answer, ours included
    expect(p95, summary).toBeLessThan(Math.max(100, 2 * baselineP95));
  });

  it('survives at a 512 MB heap and still serves', async () => {
    expect(child.exitCode).toBeNull();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/system/ports.ts';
import { startPrivateChain, until, type PrivateChain } from '../support/anvil.ts';
import { createTestDatabase } from '../support/database.ts';
import { fundedKey } from '../support/service.ts';
import { serveRole, stopChild } from './serve.ts';

/** Debian's prometheus package (`./dev test` installs it: scripts/ensure-debian-package.sh); the variables name others. */
const PROMTOOL = process.env.PROMTOOL_PATH ?? '/usr/bin/promtool';
const PROMETHEUS = process.env.PROMETHEUS_PATH ?? '/usr/bin/prometheus';
const RULES = join(import.meta.dirname, '../../../../deploy/prometheus');
const GRAFANA = join(import.meta.dirname, '../../../../deploy/grafana/attestation-service.json');

const dir = await mkdtemp(join(tmpdir(), 'prometheus-test-'));
const children: ChildProcess[] = [];
let chain: PrivateChain;
let prometheusUrl: string;
let targets: { api: string; worker: string };

async function promtool(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(PROMTOOL, args, { cwd: RULES });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

/** One instant query to the running Prometheus: its result vector. */
async function query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const res = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await res.json()) as { status: string; data: { result: [] } };
  expect(body.status).toBe('success');
  return body.data.result;
}

beforeAll(async () => {
  for (const binary of [PROMTOOL, PROMETHEUS])
    await access(binary, constants.X_OK).catch(() => {
      throw new Error(
        `${binary} is missing: ./dev test installs Debian's prometheus (or set PROMTOOL_PATH, PROMETHEUS_PATH)`,
      );
    });
  chain = await startPrivateChain();
  const [apiPort, apiMetrics, workerMetrics, workerHealth, promPort] = await Promise.all(
    Array.from({ length: 5 }, () => freePort()),
  );
  const env = {
    ...process.env,
    DATABASE_URL: await createTestDatabase(),
    CHAIN_RPC_URL: chain.rpcUrl,
    EAS_ADDRESS: chain.eas,
    SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
    RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
    // 1000 ETH held, under five times this floor: the balance alert's condition holds from the first scrape
    RELAYER_MIN_BALANCE_ETH: '250',
    ANCHOR_INTERVAL: '1h',
    LOG_LEVEL: 'silent',
  };
  targets = { api: `127.0.0.1:${apiMetrics}`, worker: `127.0.0.1:${workerMetrics}` };
  children.push(
    await serveRole(
      ['--api'],
      { ...env, PORT: String(apiPort), METRICS_PORT: String(apiMetrics), VERIFY_PORT: String(await freePort()) },
      `http://127.0.0.1:${apiPort}/healthz`,
    ),
  );
  children.push(
    await serveRole(
      ['--worker'],
      { ...env, METRICS_PORT: String(workerMetrics), WORKER_HEALTH_PORT: String(workerHealth) },
      `http://127.0.0.1:${workerHealth}/healthz`,
    ),
  );
  await writeFile(
    join(dir, 'prometheus.yml'),
    `global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [${JSON.stringify(join(RULES, 'alerts.yml'))}]
scrape_configs:
  - job_name: attestation-service
    static_configs:
      - targets: ['${targets.api}']
        labels: { role: api }
      - targets: ['${targets.worker}']
        labels: { role: worker }
`,
  );
  const prometheus = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
    ],
    { stdio: 'ignore' },
  );
  children.push(prometheus);
  prometheusUrl = `http://127.0.0.1:${promPort}`;
  await until(
    () =>
      fetch(`${prometheusUrl}/-/ready`).then(
        (r) => (r.ok ? true : undefined),
        () => undefined,
      ),
    30_000,
  );
}, 120_000);

afterAll(async () => {
  for (const child of children.reverse()) await stopChild(child);
  await chain?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("Debian's Prometheus against a live API and worker", () => {
  it('scrapes both processes, and every metric the alert rules name is one they export', async () => {
    const up = await until(async () => {
      const result = await query('up{job="attestation-service"} == 1');
      return result.length === 2 ? result : undefined;
    }, 30_000);
    expect(up.map((s) => s.metric.role).sort()).toEqual(['api', 'worker']);
    const balance = await until(async () => {
      const [sample] = await query('max(attestation_service_relayer_balance_wei)');
      return sample;
    });
    expect(Number(balance.value[1])).toBe(1000e18);
    // the worker's own: its jobs, from due to started (the reconcile run queued at its start)
    const started = await until(async () => {
      const result = await query('attestation_service_job_queue_latency_seconds_count{role="worker",task="relay"}');
      return result.length > 0 ? result : undefined;
    });
    expect(Number(started[0]!.value[1])).toBeGreaterThanOrEqual(1);

    const rules = await readFile(join(RULES, 'alerts.yml'), 'utf8');
    const named = new Set([...rules.matchAll(/attestation_service_\w+/g)].map(([name]) => name));
    const exported = new Set((await query('{__name__=~"attestation_service_.+"}')).map((s) => s.metric.__name__!));
    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
  }, 90_000);

  it('evaluates every query of the Grafana dashboard, naming only metrics the processes export', async () => {
    const dashboard = JSON.parse(await readFile(GRAFANA, 'utf8')) as {
      panels: Array<{ targets?: Array<{ expr: string }> }>;
    };
    const exprs = dashboard.panels.flatMap((panel) => panel.targets ?? []).map((target) => target.expr);
    expect(exprs.length).toBeGreaterThan(15);
    for (const expr of exprs) await query(expr); // each answers `success`
    const exported = new Set((await query('{__name__=~"attestation_service_.+"}')).map((s) => s.metric.__name__!));
    const named = new Set(
      exprs.flatMap((expr) => [...expr.matchAll(/attestation_service_\w+/g)].map(([name]) => name)),
    );
    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
  });

  it('evaluates every rule on the live series without an error, the balance alert pending', async () => {
    const pending = await until(async () => {
      const res = await fetch(`${prometheusUrl}/api/v1/alerts`);
      const { data } = (await res.json()) as {
        data: { alerts: Array<{ labels: { alertname: string }; state: string }> };
      };
      return data.alerts.find((a) => a.labels.alertname === 'RelayerBalanceLow');
    }, 30_000);
    expect(pending.state).toBe('pending'); // `for: 5m`: it fires after five minutes of this
    const res = await fetch(`${prometheusUrl}/api/v1/rules`);
    const { data } = (await res.json()) as {
      data: { groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string }> }> };
    };
    const evaluated = data.groups.flatMap((g) => g.rules);
    expect(evaluated).toHaveLength(11);
    expect(evaluated.filter((r) => r.health !== 'ok')).toEqual([]);
  }, 60_000);

  it('passes promtool check config and check rules, and promtool test rules fires each alert from its series', async () => {
    expect((await promtool('check', 'config', 'prometheus.example.yml')).code).toBe(0);
    const checked = await promtool('check', 'rules', 'alerts.yml');
    expect(checked.output).toContain('SUCCESS: 11 rules found');
    expect(checked.code).toBe(0);
    const tested = await promtool('test', 'rules', 'alerts.test.yml');
    expect(tested.output).toContain('SUCCESS');
    expect(tested.code).toBe(0);
    const tests = await readFile(join(RULES, 'alerts.test.yml'), 'utf8');
    const firing = new Set([...tests.matchAll(/alertname: (\w+)\n\s+exp_alerts:\n\s+- exp_labels/g)].map((m) => m[1]));
    const alerts = [...(await readFile(join(RULES, 'alerts.yml'), 'utf8')).matchAll(/- alert: (\w+)/g)].map(
      (m) => m[1],
    );
    expect(alerts.filter((alert) => !firing.has(alert))).toEqual([]);
  });
});

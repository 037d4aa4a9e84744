import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheus from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevChain, type DevChain } from '../../src/chain/dev-chain.ts';
import { RATE_LIMITS } from '../../src/limits/rate-limit.ts';
import { freePort } from '../../src/system/ports.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, fundedKey, randomIp, startTestService, type TestService } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

type Family = parsePrometheus.Family;

/** The service's metrics' one prefix. */
const P = 'attestation_service_';

const ANVIL_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
let dir: string;
// a chain of this file's own: pausing its mining must not hold other files' creates
let chain: DevChain;
let svc: TestService;
const receivers: Receiver[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'metrics-chain-'));
  chain = await startDevChain({ dataDir: dir, deployerKey: ANVIL_KEY });
  svc = await startTestService({
    env: {
      METRICS_PORT: String(await freePort()),
      CHAIN_RPC_URL: chain.rpcUrl,
      EAS_ADDRESS: chain.eas,
      SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
      RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_DELAYS: '1s,1s,1s,1s',
    },
  });
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await Promise.all(receivers.map((r) => r.close()));
  await chain?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function rpc(method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(chain.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(?:${LABEL}(?:,${LABEL})*)?\\})? (\\S+)$`);
const META = new RegExp(`^# (?:HELP ${NAME} .*|TYPE ${NAME} (?:counter|gauge|histogram|summary|untyped))$`);

/**
 * The families of one scrape, each sample line checked against the text format before the parser reads it all. The
 * parser folds a histogram's series into one (prom2json's shape, which drops their labels), so histograms are also
 * read untyped too: `<name>_bucket`, `_sum` and `_count` then come as families of their own (one per series, in
 * prom-client's order, joined here), every sample with its labels.
 */
async function scrape(): Promise<Map<string, Family>> {
  const res = await fetch(`${svc.metricsUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  const text = await res.text();
  for (const line of text.split('\n').filter((l) => l !== '')) {
    if (line.startsWith('#')) {
      expect(line, 'a HELP or TYPE line').toMatch(META);
      continue;
    }
    const sample = SAMPLE.exec(line);
    expect(sample, `a sample line: ${line}`).not.toBeNull();
    const value = sample![2]!;
    // what Prometheus's parser takes (Go's ParseFloat): prom-client writes an empty event-loop histogram's mean as Nan
    expect(/^[+-]?(inf|infinity|nan)$/i.test(value) || Number.isFinite(Number(value)), line).toBe(true);
  }
  const families = parsePrometheus(text);
  const untyped = parsePrometheus(
    text
      .split('\n')
      .filter((line) => !line.startsWith('# TYPE '))
      .join('\n'),
  );
  const byName = new Map<string, Family>();
  for (const family of untyped) {
    const seen = byName.get(family.name);
    if (seen) seen.metrics.push(...family.metrics);
    else byName.set(family.name, family);
  }
  for (const family of families) byName.set(family.name, family);
  return byName;
}

function matches(labels: Record<string, string> | undefined, wanted: Record<string, string>): boolean {
  return Object.entries(wanted).every(([name, value]) => labels?.[name] === value);
}

/** The value of a counter's or gauge's series (undefined when it has none). */
function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const sample = families.get(name)?.metrics.find((m) => matches(m.labels, labels));
  return sample?.value === undefined ? undefined : Number(sample.value);
}

/** What a histogram counted in the series with these labels. */
function countOf(families: Map<string, Family>, name: string, labels: Record<string, string>): number {
  const samples = families.get(`${name}_count`)?.metrics.filter((m) => matches(m.labels, labels)) ?? [];
  return samples.reduce((sum, m) => sum + Number(m.value), 0);
}

async function until<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  return (await waitFor(read, { timeout: timeoutMs, what })) as T;
}

describe('/metrics', () => {
  it('is served on METRICS_PORT with the process metrics, and is no route of the API port', async () => {
    expect(new URL(svc.metricsUrl!).port).toBe(svc.config.metricsPort!.toString());
    const families = await scrape();
    expect(families.get('process_cpu_user_seconds_total')?.type).toBe('COUNTER');
    expect(families.get('nodejs_eventloop_lag_seconds')?.type).toBe('GAUGE');
    const onApi = await call(svc.url, 'GET', '/metrics');
    expect(onApi.status).toBe(404);
    expect(onApi.body.code).toBe('NOT_FOUND');
    expect((await fetch(`${svc.metricsUrl}/`)).status).toBe(404);
    expect((await fetch(`${svc.metricsUrl}/metrics`, { method: 'POST' })).status).toBe(404);
  });

  it('counts API requests by route pattern or procedure and status, never by the raw path', async () => {
    const uid = `0x${randomUUID().replaceAll('-', '')}${'0'.repeat(32)}`;
    const before = await scrape();
    expect((await call(svc.url, 'GET', '/healthz')).status).toBe(200);
    expect((await call(svc.url, 'GET', `/v1/attestations/${uid}`)).status).toBe(404);
    expect((await call(svc.url, 'GET', `/trpc/no.such.${uid}`)).status).toBe(404);
    expect((await call(svc.url, 'GET', `/nowhere/${uid}`)).status).toBe(404);
    const families = await scrape();
    const name = `${P}http_request_duration_seconds`;
    expect(families.get(name)?.type).toBe('HISTOGRAM');
    const counted = (labels: Record<string, string>) =>
      countOf(families, name, { method: 'GET', ...labels }) - countOf(before, name, { method: 'GET', ...labels });
    expect(counted({ route: '/healthz', status: '200' })).toBe(1);
    expect(counted({ route: '/v1/attestations/{uid}', status: '404' })).toBe(1);
    expect(counted({ route: '/trpc/(unknown)', status: '404' })).toBe(1);
    expect(counted({ route: '(unmatched)', status: '404' })).toBe(1);
    const series = families.get(`${name}_bucket`)!.metrics;
    const labels = series.flatMap((m) => Object.values(m.labels ?? {}));
    expect(labels.filter((value) => value.includes(uid.slice(2, 12)))).toEqual([]);
    const healthz = series.filter((m) => m.labels?.route === '/healthz' && m.labels.status === '200');
    expect(healthz.map((m) => m.labels!.le)).toEqual(expect.arrayContaining(['0.005', '1', '60', '+Inf']));
  });

  it('counts public reads by what answered them, and gauges the answers held', async () => {
    const { key } = await svc.createKey('pro');
    const content = `held ${Math.random()}`;
    const create = async () => {
      const body = { type: 'human', content, contentType: 'text/plain', mode: 'offchain' };
      const created = await call(svc.url, 'POST', '/v1/attestations', { key, body });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    };
    const hash = `0x${createHash('sha256').update(content).digest('hex')}`;
    const ip = randomIp();
    const search = async () =>
      (await call(svc.url, 'GET', `/v1/attestations?hash=${hash}`, { headers: { 'x-forwarded-for': ip } })).status;
    await create();
    const before = await scrape();
    for (let i = 0; i < 3; i++) expect(await search()).toBe(200);
    await create(); // a second record under the hash: the held page is stale
    expect(await search()).toBe(200);

    const after = await scrape();
    const moved = (outcome: string) =>
      (valueOf(after, `${P}answers_read_total`, { outcome }) ?? 0) -
      (valueOf(before, `${P}answers_read_total`, { outcome }) ?? 0);
    // written once, then held twice; then written anew
    expect([moved('miss'), moved('hit'), moved('stale')]).toEqual([1, 2, 1]);
    expect(valueOf(after, `${P}answers_held`)).toBeGreaterThanOrEqual(1);
    expect(valueOf(after, `${P}answers_held_bytes`)).toBeGreaterThan(4000);
  });

  it('counts rate-limit refusals by policy and quota refusals by tier', async () => {
    const before = await scrape();
    const ip = randomIp();
    const uid = `0x${'ab'.repeat(32)}`;
    const statuses: number[] = [];
    for (let i = 0; i <= RATE_LIMITS.anonymous; i++)
      statuses.push(
        (await call(svc.url, 'GET', `/v1/attestations/${uid}`, { headers: { 'x-forwarded-for': ip } })).status,
      );
    expect(statuses.at(-1)).toBe(429);
    const { key, prefix } = await svc.createKey('free');
    await svc.chargeQuota(prefix, 20);
    const refused = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'ai', content: 'over quota', contentType: 'text/plain', mode: 'onchain' },
    });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('QUOTA_EXCEEDED');

    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) =>
      (valueOf(after, name, labels) ?? 0) - (valueOf(before, name, labels) ?? 0);
    expect(moved(`${P}rate_limit_refusals_total`, { policy: 'ip' })).toBe(1);
    expect(moved(`${P}rate_limit_refusals_total`, { policy: 'key' })).toBe(0);
    expect(moved(`${P}quota_refusals_total`, { tier: 'free' })).toBe(1);
    const route = { method: 'POST', route: '/v1/attestations', status: '429' };
    expect(countOf(after, `${P}http_request_duration_seconds`, route)).toBeGreaterThanOrEqual(1);
  });

  it('reads the relayer gauges from the tables while a create waits for its block, and counts its webhooks', async () => {
    const { key } = await svc.createKey('pro');
    const flaky = await startReceiver((_, i) => ({ status: i === 0 ? 500 : 200 }));
    const down = await startReceiver(() => ({ status: 500 }));
    receivers.push(flaky, down);
    for (const receiver of [flaky, down]) {
      const res = await call(svc.url, 'POST', '/v1/webhooks', {
        key,
        body: { url: receiver.url, events: ['attestation.created'] },
      });
      expect(res.status).toBe(201);
    }
    const start = await scrape();
    expect(valueOf(start, `${P}relay_pending_items`, { kind: 'attest' })).toBe(0);
    expect(valueOf(start, `${P}relay_transactions_in_flight`)).toBe(0);
    expect(valueOf(start, `${P}relay_oldest_pending_age_seconds`)).toBe(0);
    expect(valueOf(start, `${P}relayer_balance_wei`)).toBe(1000e18);
    expect(valueOf(start, `${P}relayer_min_balance_wei`)).toBe(0.001e18);
    expect(valueOf(start, `${P}chain_available`)).toBe(1);
    expect(valueOf(start, `${P}chain_rpc_up`)).toBe(1);
    const attempts = (f: Map<string, Family>, outcome: string) =>
      valueOf(f, `${P}webhook_delivery_attempts_total`, { outcome }) ?? Number.NaN;
    expect([attempts(start, 'completed'), attempts(start, 'failed'), attempts(start, 'dead')]).toEqual([0, 0, 0]);

    await rpc('evm_setAutomine', [false]); // the transaction waits in the mempool until we mine
    let created: Promise<Awaited<ReturnType<typeof call>>> | undefined;
    try {
      created = call(svc.url, 'POST', '/v1/attestations', {
        key,
        body: { type: 'ai', content: `metrics ${Math.random()}`, contentType: 'text/plain', mode: 'onchain' },
      });
      const waiting = await until(async () => {
        const f = await scrape();
        const inFlight = valueOf(f, `${P}relay_transactions_in_flight`) ?? 0;
        return inFlight >= 1 ? f : undefined;
      }, 'a transaction in flight');
      expect(valueOf(waiting, `${P}relay_pending_items`, { kind: 'attest' })).toBe(1);
      expect(valueOf(waiting, `${P}relay_oldest_pending_age_seconds`)).toBeGreaterThan(0);
      expect(valueOf(waiting, `${P}relayer_last_max_fee_per_gas_wei`)).toBeGreaterThan(0);
    } finally {
      await rpc('evm_mine');
      await rpc('evm_setAutomine', [true]);
    }
    const answer = await created!;
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);

    const mined = await until(async () => {
      const f = await scrape();
      const done =
        valueOf(f, `${P}relay_transactions_in_flight`) === 0 && (valueOf(f, `${P}relayer_balance_wei`) ?? 0) < 1000e18;
      return done ? f : undefined;
    }, 'the transaction mined and paid for');
    expect(valueOf(mined, `${P}relay_pending_items`, { kind: 'attest' })).toBe(0);
    expect(valueOf(mined, `${P}relay_oldest_pending_age_seconds`)).toBe(0);
    const grew = (name: string, labels: Record<string, string> = {}) =>
      (valueOf(mined, P + name, labels) ?? 0) - (valueOf(start, P + name, labels) ?? 0);
    expect(grew('attestations_created_total', { mode: 'onchain', type: 'ai' })).toBe(1);
    expect(grew('relay_transactions_total', { outcome: 'mined' })).toBeGreaterThanOrEqual(1);
    expect(grew('relay_gas_used_total')).toBeGreaterThan(21_000);
    expect(countOf(mined, `${P}job_queue_latency_seconds`, { task: 'relay' })).toBeGreaterThanOrEqual(1);
    expect(countOf(mined, `${P}db_pool_wait_seconds`, {})).toBeGreaterThan(0);
    expect(valueOf(mined, `${P}db_pool_max_connections`)).toBeGreaterThan(0);

    // the flaky receiver fails once, then takes it; the other fails all five attempts (1 s apart): the delivery dies
    let queued = 0;
    const delivered = await until(
      async () => {
        const f = await scrape();
        queued = Math.max(queued, valueOf(f, `${P}webhook_deliveries_pending`) ?? 0);
        return attempts(f, 'dead') === 1 && attempts(f, 'completed') === 1 ? f : undefined;
      },
      'the deliveries completed and dead',
      30_000,
    );
    expect(queued).toBeGreaterThanOrEqual(1);
    expect(attempts(delivered, 'failed')).toBe(5);
    expect(valueOf(delivered, `${P}webhook_deliveries_pending`)).toBe(0);
    expect(flaky.received).toHaveLength(2);
    expect(down.received).toHaveLength(5);
  }, 90_000);
});

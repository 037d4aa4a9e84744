// Webhook deliveries: 10 000 queued events drained by one, then two `serve --worker` processes into a local
// receiver, and the time from a committed change to its first attempt; next to the same signed POSTs sent
// straight from one process (no queue, no database) in the same run.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger, runMigrations } from 'graphile-worker';
import { privateKeyToAccount } from 'viem/accounts';
import { startDevChain } from '../src/chain/dev-chain.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createDatabase, inTransaction } from '../src/db/database.ts';
import { createPool } from '../src/db/sql.ts';
import { emitEvents } from '../src/webhooks/outbox.ts';
import { postWebhook } from '../src/webhooks/post.ts';
import { systemResolver } from '../src/webhooks/url-guard.ts';

const SERVER_DIR = join(import.meta.dirname, '..');
const ANVIL_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const QUEUED = 10_000;
const LATENCY_EVENTS = 1_000;
const LATENCY_RATE = 200; // events per second while latency is measured
const CONCURRENCY = 64; // jobs per worker (WORKER_CONCURRENCY's default), and the baseline's parallel POSTs

export interface WebhookFigures {
  baseline: { perSecond: number; concurrency: number };
  runs: Array<{ workers: number; perSecond: number; drainSeconds: number; p50: number; p99: number }>;
}

const percentile = (sorted: number[], p: number) =>
  Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]! * 10) / 10;

/** A receiver that answers 204 at once and notes when each event first arrived (by its data.uid). */
async function receiver() {
  const firstSeen = new Map<string, number>();
  let count = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count++;
      const id = (JSON.parse(Buffer.concat(chunks).toString()) as { data: { uid: string } }).data.uid;
      if (!firstSeen.has(id)) firstSeen.set(id, performance.timeOrigin + performance.now());
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    firstSeen,
    count: () => count,
    close: () => new Promise<void>((r) => (server.close(() => r()), server.closeAllConnections())),
  };
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('webhook bench timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The same signed POSTs from one process, CONCURRENCY at a time: what the receiver and HTTP stack allow without a queue. */
async function baseline(url: string): Promise<number> {
  const policy = { allowPrivate: true, resolve: systemResolver };
  const body = JSON.stringify({
    id: randomUUID(),
    type: 'attestation.created',
    createdAt: new Date().toISOString(),
    data: { uid: `0x${randomBytes(32).toString('hex')}` },
  });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < QUEUED)
        await postWebhook(
          { url, secret: 'a'.repeat(64), deliveryId: randomUUID(), eventType: 'attestation.created', body },
          policy,
        );
    }),
  );
  return Math.round(QUEUED / ((performance.now() - started) / 1000));
}

function startWorker(env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['../service/bin/attestation-service.mjs', 'serve', '--worker'], {
    cwd: SERVER_DIR,
    // two workers on one machine: each its own free port for its probes
    env: { ...process.env, ...env, LOG_LEVEL: 'warn', WORKER_HEALTH_PORT: '0' },
    stdio: 'ignore',
  });
}

export async function measureWebhooks(databaseFor: (name: string) => Promise<string>): Promise<WebhookFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-webhooks-'));
  const chain = await startDevChain({ dataDir: dir, deployerKey: ANVIL_KEY });
  const hook = await receiver();
  try {
    const figures: WebhookFigures = {
      baseline: { perSecond: await baseline(hook.url), concurrency: CONCURRENCY },
      runs: [],
    };
    for (const workers of [1, 2]) {
      const databaseUrl = await databaseFor(`webhooks_${workers}`);
      await applyMigrations(databaseUrl);
      const pool = createPool(databaseUrl, 4);
      const db = createDatabase(pool);
      const children: ChildProcess[] = [];
      try {
        await runMigrations({ pgPool: pool, logger: new Logger(() => () => undefined) });
        const accountId = randomUUID();
        await pool.query(`INSERT INTO accounts (id, name, name_key) VALUES ($1, 'bench-webhooks', 'bench-webhooks')`, [
          accountId,
        ]);
        await pool.query(
          `INSERT INTO webhook_subscriptions (id, account_id, url, events, secret, created_at) VALUES ($1, $2, $3, $4, $5, now())`,
          [randomUUID(), accountId, hook.url, ['attestation.created'], 'a'.repeat(64)],
        );
        const event = () => ({
          accountId,
          type: 'attestation.created' as const,
          data: { uid: `0x${randomBytes(32).toString('hex')}` },
        });
        for (let i = 0; i < QUEUED; i += 500)
          await inTransaction(db, (tx) => emitEvents(tx, Array.from({ length: 500 }, event), new Date()));
        hook.firstSeen.clear();

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
        const env = {
          DATABASE_URL: databaseUrl,
          CHAIN_RPC_URL: chain.rpcUrl,
          EAS_ADDRESS: chain.eas,
          SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
          RELAYER_PRIVATE_KEY: key,
          WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
          WORKER_CONCURRENCY: String(CONCURRENCY),
        };
        for (let i = 0; i < workers; i++) children.push(startWorker(env));
        await until(() => hook.firstSeen.size > 0, 60_000);
        const first = Math.min(...hook.firstSeen.values());
        await until(() => hook.firstSeen.size >= QUEUED, 300_000);
        const drainSeconds = (Math.max(...hook.firstSeen.values()) - first) / 1000;

        // latency: events committed one by one at a steady rate, each timed from its commit to its first arrival
        const committed = new Map<string, number>();
        hook.firstSeen.clear();
        for (let i = 0; i < LATENCY_EVENTS; i++) {
          const started = performance.now();
          const one = event();
          await inTransaction(db, (tx) => emitEvents(tx, [one], new Date()));
          committed.set(one.data.uid, performance.timeOrigin + performance.now());
          await new Promise((r) => setTimeout(r, Math.max(0, 1000 / LATENCY_RATE - (performance.now() - started))));
        }
        await until(() => [...committed.keys()].every((id) => hook.firstSeen.has(id)), 60_000);
        const latencies = [...committed].map(([id, at]) => hook.firstSeen.get(id)! - at).sort((a, b) => a - b);
        figures.runs.push({
          workers,
          perSecond: Math.round(QUEUED / drainSeconds),
          drainSeconds: Math.round(drainSeconds * 10) / 10,
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
        });
      } finally {
        for (const child of children) child.kill('SIGTERM');
        await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
        await pool.end();
      }
    }
    return figures;
  } finally {
    await hook.close();
    await chain.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export function renderWebhooks(f: WebhookFigures): string {
  return `
## Webhook deliveries (same run)

${QUEUED.toLocaleString('en')} events queued through the outbox, then drained by \`serve --worker\` processes (${CONCURRENCY} jobs
at a time each) into a receiver on loopback that answers 204; then ${LATENCY_EVENTS.toLocaleString('en')} events committed
one by one at ${LATENCY_RATE}/s, each timed from its commit to its first attempt.

| sender | deliveries/s | × baseline | drain s | commit → first attempt p50 ms | p99 ms | target |
|---|---:|---:|---:|---:|---:|---|
| baseline: the same signed POSTs from one process, ${f.baseline.concurrency} at a time, no queue | ${f.baseline.perSecond.toLocaleString('en')} | 1.00 | | | | |
${f.runs.map((r) => `| ${r.workers} worker${r.workers > 1 ? 's' : ''} | ${r.perSecond.toLocaleString('en')} | ${(r.perSecond / f.baseline.perSecond).toFixed(2)} | ${r.drainSeconds} | ${r.p50} | ${r.p99} | ≥ ${500 * r.workers}/s, p99 < 1 000 ms |`).join('\n')}
`;
}

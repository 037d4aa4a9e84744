import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/system/ports.ts';
import { startPrivateChain, type PrivateChain } from '../support/anvil.ts';
import { createTestDatabase } from '../support/database.ts';
import { call, fundedKey } from '../support/service.ts';
import { serveRole, stopChild } from './serve.ts';

const SRC = join(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const files = sources(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }));

describe('OpenTelemetry with tracing off', () => {
  it('is imported by tracing/sdk.ts alone', () => {
    const importers = files.filter((f) => /from '@opentelemetry\/|import\('@opentelemetry\//.test(f.text));
    expect(importers.map((f) => f.path)).toEqual(['tracing/sdk.ts']);
  });

  it('is loaded only through a dynamic import of tracing/sdk.ts, once the OTEL_* variables asked for traces', () => {
    const static_ = files.filter((f) => /from '[./]*(tracing\/)?sdk\.ts'/.test(f.text));
    expect(static_.map((f) => f.path)).toEqual([]);
    const dynamic = files.filter((f) => /import\('\.\/tracing\/sdk\.ts'\)/.test(f.text));
    expect(dynamic.map((f) => f.path)).toEqual(['main.ts']);
    const main = dynamic[0]!.text;
    expect(main.indexOf('tracingWanted(process.env)')).toBeLessThan(main.indexOf("import('./tracing/sdk.ts')"));
  });
});

describe('a serve process', () => {
  let chain: PrivateChain;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    chain = await startPrivateChain();
    dir = await mkdtemp(join(tmpdir(), 'otel-load-'));
    env = {
      ...process.env,
      DATABASE_URL: await createTestDatabase(),
      CHAIN_RPC_URL: chain.rpcUrl,
      EAS_ADDRESS: chain.eas,
      SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
      RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
      LOG_LEVEL: 'silent',
      NODE_OPTIONS: `--import=${join(import.meta.dirname, 'load-hook.mjs')}`,
    };
  }, 60_000);
  afterAll(async () => {
    await chain?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** What of @opentelemetry a `serve` resolved while it started, answered a request and stopped. */
  async function loadedBy(extra: NodeJS.ProcessEnv): Promise<string> {
    const log = join(dir, `${Object.keys(extra).length}.log`);
    const port = await freePort();
    const child = await serveRole(
      [],
      { ...env, ...extra, OTEL_LOAD_LOG: log, PORT: String(port), VERIFY_PORT: String(await freePort()) },
      `http://127.0.0.1:${port}/healthz`,
    );
    expect((await call(`http://127.0.0.1:${port}`, 'GET', '/v1/attestations?hash=' + '0'.repeat(64))).status).toBe(200);
    await stopChild(child);
    return readFile(log, 'utf8').catch(() => '');
  }

  it('loads no OpenTelemetry module without the OTEL_* variables, and loads it with them', async () => {
    expect(await loadedBy({})).toBe('');
    const traced = await loadedBy({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freePort()}` });
    expect(traced).toContain('@opentelemetry/sdk-trace');
  }, 90_000);
});

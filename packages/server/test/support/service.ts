import { loadConfig } from '../../src/config.ts';
import type { Clock } from '../../src/clock.ts';
import { startService, type RunningService } from '../../src/main.ts';
import type { Tier } from '../../src/keys/format.ts';
import type { ReadinessCheck } from '../../src/system/health.ts';
import { createTestDatabase } from './database.ts';

export interface TestService extends RunningService {
  url: string;
  /** A fresh key of its own account (each test seeds its own tenant). */
  createKey(tier?: Tier, account?: string): Promise<{ key: string; prefix: string; account: string }>;
}

let accountSeq = 0;

/** The real service on a fresh database and a free port (no worker unless asked). */
export async function startTestService(opts: { env?: Record<string, string>; clock?: Clock; worker?: boolean; readiness?: Record<string, ReadinessCheck> } = {}): Promise<TestService> {
  const databaseUrl = opts.env?.DATABASE_URL ?? (await createTestDatabase());
  // TRUST_PROXY: tests that are not about limits give each call its own client address (see call())
  const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, TRUST_PROXY: 'true', ...opts.env });
  const service = await startService(config, { parts: { api: true, worker: !!opts.worker }, clock: opts.clock, readiness: opts.readiness });
  return {
    ...service,
    url: service.apiUrl,
    async createKey(tier = 'free', account) {
      const name = account ?? `acct-${process.pid}-${++accountSeq}-${Math.random().toString(36).slice(2, 8)}`;
      const created = await service.services.keys.create({ tier, account: name });
      return { key: created.key, prefix: created.prefix, account: name };
    },
  };
}

/** A JSON request to the service; returns status, headers and the parsed body. */
export async function call(
  base: string,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string | Buffer } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { 'x-forwarded-for': randomIp(), ...opts.headers };
  if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
  let body: string | Buffer | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: the test sees the text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** A documentation-range address, different for every call, so anonymous limits do not bite unrelated tests. */
export function randomIp(): string {
  return `198.51.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`;
}

import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/main.ts';
import { createTestDatabase } from '../support/database.ts';
import { call } from '../support/service.ts';
import { startLoggedService, type LogLine } from './log-capture.ts';

/**
 * A TCP proxy in front of the test database that can be frozen: it stops forwarding both ways without closing a
 * socket, which is what a stopped (SIGSTOP) or partitioned PostgreSQL looks like to the service.
 */
async function freezableProxy(
  target: URL,
): Promise<{ url: string; freeze(): void; thaw(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let frozen = false;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      if (frozen) from.pause();
      from.on('data', (chunk: Buffer) => to.write(chunk));
      from.on('close', () => (sockets.delete(from), to.destroy()));
      from.on('error', () => to.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: url.toString(),
    freeze: () => ((frozen = true), sockets.forEach((s) => s.pause())),
    thaw: () => ((frozen = false), sockets.forEach((s) => s.resume())),
    close: () => new Promise((resolve) => (sockets.forEach((s) => s.destroy()), server.close(() => resolve()))),
  };
}

const STATEMENT_MS = 1_000;
const ACQUIRE_MS = 1_000;
// the client gives up a second after the statement timeout when the server does not answer at all
const BOUND_MS = STATEMENT_MS + 1_000;
const SLACK_MS = 1_500;

let proxy: Awaited<ReturnType<typeof freezableProxy>>;
let service: RunningService;
let lines: LogLine[];

beforeAll(async () => {
  proxy = await freezableProxy(new URL(await createTestDatabase()));
  ({ service, lines } = await startLoggedService({
    DATABASE_URL: proxy.url,
    DATABASE_STATEMENT_TIMEOUT: `${STATEMENT_MS}ms`,
    DATABASE_ACQUIRE_TIMEOUT: `${ACQUIRE_MS}ms`,
  }));
});
afterAll(async () => {
  proxy?.thaw();
  await service?.stop();
  await proxy?.close();
});

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await fn();
  return [result, performance.now() - started];
}

describe('a database that does not answer (docs/decisions.md, "Input rules")', () => {
  it('is a 503 SERVICE_UNAVAILABLE within the bound, /healthz still answers, and the service recovers', async () => {
    const { key } = await service.services.keys.create({ tier: 'free', account: 'db-timeouts' });
    const body = { type: 'ai', content: 'while frozen', contentType: 'text/plain', mode: 'offchain' };
    const before = await call(service.apiUrl, 'POST', '/v1/attestations', { key, body });
    expect(before.status).toBe(201);

    proxy.freeze();
    try {
      const [read, readMs] = await timed(() =>
        call(service.apiUrl, 'GET', `/v1/attestations/${before.body.uid}`, {
          headers: { 'x-request-id': 'frozen-read' },
        }),
      );
      expect(read).toMatchObject({ status: 503, body: { code: 'SERVICE_UNAVAILABLE', details: {} } });
      expect(read.body.message).not.toMatch(/select|timeout exceeded|query/i);
      expect(read.headers.get('retry-after')).toBe('5');
      expect(readMs).toBeLessThan(BOUND_MS + SLACK_MS);

      const [create, createMs] = await timed(() => call(service.apiUrl, 'POST', '/v1/attestations', { key, body }));
      expect(create).toMatchObject({ status: 503, body: { code: 'SERVICE_UNAVAILABLE' } });
      expect(createMs).toBeLessThan(BOUND_MS + ACQUIRE_MS + SLACK_MS);

      const [trpc, trpcMs] = await timed(() =>
        call(
          service.apiUrl,
          'GET',
          `/trpc/attestations.get?input=${encodeURIComponent(JSON.stringify({ uid: before.body.uid }))}`,
        ),
      );
      expect(trpc.status).toBe(503);
      expect(trpc.body.error.data).toMatchObject({ code: 'SERVICE_UNAVAILABLE', httpStatus: 503 });
      expect(trpc.headers.get('retry-after')).toBe('5');
      expect(trpcMs).toBeLessThan(BOUND_MS + ACQUIRE_MS + SLACK_MS);

      const [ready, readyMs] = await timed(() => call(service.apiUrl, 'GET', '/readyz'));
      expect(ready).toMatchObject({ status: 503, body: { code: 'NOT_READY', details: { failing: ['database'] } } });
      expect(readyMs).toBeLessThan(BOUND_MS + SLACK_MS);

      const [health, healthMs] = await timed(() => call(service.apiUrl, 'GET', '/healthz'));
      expect(health.status).toBe(200);
      expect(healthMs).toBeLessThan(500);
    } finally {
      proxy.thaw();
    }

    // the failure is logged once, with the request's id and the error's kind, never its text
    const failed = lines.filter((line) => line.msg === 'request failed' && line.requestId === 'frozen-read');
    expect(failed).toHaveLength(1);
    expect(JSON.stringify(failed[0])).not.toMatch(/select/i);

    const after = await call(service.apiUrl, 'POST', '/v1/attestations', {
      key,
      body: { ...body, content: 'after the thaw' },
    });
    expect(after.status).toBe(201);
    expect((await call(service.apiUrl, 'GET', `/v1/attestations/${after.body.uid}`)).status).toBe(200);
    expect((await call(service.apiUrl, 'GET', '/readyz')).status).toBe(200);
  }, 60_000);
});

import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

export type { Registry } from 'prom-client';

/** The service's own metrics' prefix (prom-client's process_* and nodejs_* keep their conventional names). */
export const PREFIX = 'attestation_service_';

/**
 * The process's one registry, with Node's process metrics (CPU, memory, event-loop lag, GC, handles). Made only when
 * METRICS_PORT is set: the default collectors start an event-loop monitor and a GC observer that live as long as the
 * process does.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * A reading shared by the gauges of one scrape: the registry collects every metric at once, so the gauges that call
 * it while a reading is under way share that one (one query per scrape, not one per gauge).
 */
export function sharedReading<T>(read: () => Promise<T>): () => Promise<T> {
  let current: Promise<T> | undefined;
  return () =>
    (current ??= read().finally(() => {
      current = undefined;
    }));
}

/** What a scrape-time gauge reports when its reading fails: the scrape still answers, with the last values. */
export type ReadingFailed = (metric: string, error: unknown) => void;

/**
 * A gauge whose values are read when Prometheus scrapes (a count in a table, a balance), so it moves whatever code
 * changes what it reads. `read` returns the value, or one per label set.
 */
export function scrapedGauge<L extends string>(
  registry: Registry,
  spec: { name: string; help: string; labelNames?: readonly L[] },
  read: () => Promise<number | undefined | Array<{ labels: Record<L, string>; value: number }>>,
  failed: ReadingFailed,
): Gauge<L> {
  return new Gauge<L>({
    ...spec,
    registers: [registry],
    async collect() {
      try {
        const value = await read();
        if (typeof value === 'number') this.set(value);
        else for (const sample of value ?? []) this.set(sample.labels as Partial<Record<L, string>>, sample.value);
      } catch (error) {
        failed(spec.name, error);
      }
    },
  });
}

/** The metrics listener: `GET /metrics` in Prometheus's text format, 404 for anything else. */
interface MetricsListener {
  /** Its base URL as bound (the real port when METRICS_PORT=0). */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the registry on its own port (never the API's: it is unauthenticated; docs/operations.md, "Metrics"). A scrape
 * that fails
 * answers 500 with the reason's kind, never a partial text Prometheus would take for the truth.
 */
export function serveMetrics(registry: Registry, port: number, host: string): Promise<MetricsListener> {
  const server: Server = createServer({ requestTimeout: 30_000, headersTimeout: 20_000 }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: see /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        const kind = error instanceof Error ? error.name : typeof error;
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`metrics unavailable (${kind})\n`);
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      const bound = address && typeof address === 'object' ? address.port : port;
      const name = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${name}:${bound}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

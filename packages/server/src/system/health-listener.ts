import { createServer, type ServerResponse } from 'node:http';
import { AppError } from '../errors.ts';
import type { HealthService } from './health.ts';

/** A listener answering /healthz and /readyz for a process that serves no API (`serve --worker`). */
export interface HealthListener {
  /** Its base URL as bound (the real port when the port asked for was 0). */
  url: string;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(JSON.stringify(body));
}

/**
 * Serves the health service on its own port, with the API's answers: `/healthz` 200 while the process answers (so
 * the event loop turns; a probe's timeout bounds how late) and `alive()` holds, else 503 for the orchestrator to
 * restart it; `/readyz` 200 or 503 with the API's NOT_READY body.
 */
export function serveHealth(
  health: HealthService,
  { port, host, alive }: { port: number; host: string; alive: () => string | undefined },
): Promise<HealthListener> {
  const server = createServer({ requestTimeout: 10_000, headersTimeout: 5_000 }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { code: 'METHOD_NOT_ALLOWED' });
    const dead = path === '/healthz' ? alive() : undefined;
    if (dead) return json(res, 503, { code: 'NOT_LIVE', message: `${dead}: restart the process.` });
    if (path === '/healthz') return json(res, 200, health.health());
    if (path !== '/readyz') return json(res, 404, { code: 'NOT_FOUND', message: 'See /healthz and /readyz.' });
    health.ready().then(
      (ready) => json(res, 200, ready),
      (error: unknown) => {
        const { errorCode, message, details } =
          error instanceof AppError ? error : new AppError('NOT_READY', 'Not ready.');
        json(res, 503, { code: errorCode, message, details });
      },
    );
  });
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      const bound = address && typeof address === 'object' ? address.port : port;
      resolve({
        url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

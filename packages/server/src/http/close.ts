import type { Server } from 'node:http';

/**
 * Stops accepting, lets the requests in flight finish (`drainMs` at most, SHUTDOWN_DRAIN_TIMEOUT; then their
 * connections are cut) and closes keep-alive connections as they fall idle; resolves when the last one is gone.
 */
export function closeServer(server: Server, drainMs: number): Promise<void> {
  return new Promise((resolve) => {
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    const cut = setTimeout(() => server.closeAllConnections(), drainMs);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}

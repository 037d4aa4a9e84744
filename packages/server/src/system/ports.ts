import { createServer } from 'node:net';
import { ConfigError, type Config } from '../config.ts';

/** A loopback port nobody listens on right now (for a child that takes a port number, not 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Whether nothing listens on this loopback port (the embedded database keeps its port across restarts). */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A port a part of the service will listen on, with the setting that names it. */
interface WantedPort {
  setting: 'PORT' | 'VERIFY_PORT' | 'METRICS_PORT' | 'WORKER_HEALTH_PORT';
  host: string;
  port: number;
}

/** Whether nothing listens on host:port (a probe binds it and lets go at once). */
function isFreeOn(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/**
 * Refuses to start when a port a part will listen on is taken, naming its setting: checked before the database and
 * the chain start, so a busy port costs a second, not the start of PostgreSQL and anvil before a bare EADDRINUSE.
 */
export async function requirePortsFree(wanted: WantedPort[]): Promise<void> {
  for (const { setting, host, port } of wanted) {
    if (port === 0 || (await isFreeOn(host, port))) continue;
    throw new ConfigError(
      `${setting}=${port} is taken on ${host}: another process listens there (another instance of the service?); ` +
        `stop it, or set ${setting} to a free port`,
    );
  }
}

/** The ports this process's parts listen on (a worker alone serves its probes on WORKER_HEALTH_PORT). */
export function portsOf(config: Config, parts: { api: boolean; worker: boolean }): WantedPort[] {
  const { host } = config;
  return [
    ...(parts.api ? [{ setting: 'PORT' as const, host, port: config.port }] : []),
    ...(parts.worker && !parts.api
      ? [{ setting: 'WORKER_HEALTH_PORT' as const, host, port: config.workerHealthPort }]
      : []),
    ...(config.metricsPort !== undefined ? [{ setting: 'METRICS_PORT' as const, host, port: config.metricsPort }] : []),
  ];
}

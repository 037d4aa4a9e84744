import autocannon from 'autocannon';
import { cpuSeconds, postgresCpuSeconds, postgresCpuSince, rssMb } from './children.ts';

export interface Figure {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  peakRssMb: number;
  /** CPU the server process spent per answered request, µs. */
  serverCpuUs: number;
  /** CPU PostgreSQL's processes spent per answered request, µs (what the server's queries cost the database; a
   * backend that ended during the run is not counted). */
  postgresCpuUs: number;
  /** CPU the load generator (autocannon, in the bench's own process) spent per answered request, µs: it shares the
   * machine with both. */
  loaderCpuUs: number;
}

/**
 * Runs autocannon against one endpoint while sampling the server's RSS every 100 ms, and charges the CPU the server
 * and PostgreSQL used meanwhile to the requests answered.
 */
export async function measure(name: string, pid: number, opts: autocannon.Options): Promise<Figure> {
  let peak = rssMb(pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 100);
  const cpuBefore = { server: cpuSeconds(pid), postgres: postgresCpuSeconds(), loader: process.cpuUsage() };
  try {
    const result = await autocannon({ connections: 50, duration: 10, ...opts });
    const perRequest = (seconds: number) => Math.round((seconds * 1e6) / Math.max(1, result.requests.total));
    return {
      name,
      requestsPerSecond: Math.round(result.requests.average),
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      peakRssMb: Math.round(peak),
      serverCpuUs: perRequest(cpuSeconds(pid) - cpuBefore.server),
      postgresCpuUs: perRequest(postgresCpuSince(cpuBefore.postgres)),
      loaderCpuUs: perRequest(loaderSeconds(process.cpuUsage(cpuBefore.loader))),
    };
  } finally {
    clearInterval(sampler);
  }
}

const loaderSeconds = (used: NodeJS.CpuUsage) => (used.user + used.system) / 1e6;

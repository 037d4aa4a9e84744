import autocannon from 'autocannon';
import { rssMb } from './children.ts';

export interface Figure {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  peakRssMb: number;
}

/** Runs autocannon against one endpoint while sampling the server's RSS every 100 ms. */
export async function measure(name: string, pid: number, opts: autocannon.Options): Promise<Figure> {
  let peak = rssMb(pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 100);
  try {
    const result = await autocannon({ connections: 50, duration: 10, ...opts });
    return {
      name,
      requestsPerSecond: Math.round(result.requests.average),
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      peakRssMb: Math.round(peak),
    };
  } finally {
    clearInterval(sampler);
  }
}

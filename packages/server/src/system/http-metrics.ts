import { Histogram } from 'prom-client';
import { PREFIX, type Registry } from './metrics.ts';

/** One answered request as the HTTP layer reports it: `route` is a pattern or a procedure, never a raw path. */
export interface ServedRequest {
  method: string;
  route: string;
  status: number;
  seconds: number;
}

/** Up to a minute: an on-chain create waits (bounded, 60 s) for its transaction's receipt. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * `http_request_duration_seconds{method,route,status}`: its `_count` is the requests by route and status, its buckets
 * the latency. Every label has a bounded set of values (an unknown method is `OTHER`).
 */
export function httpRequestMetrics(registry: Registry): (request: ServedRequest) => void {
  const duration = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'API requests by method, route (pattern or tRPC procedure) and status: time to the last byte of the answer.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  return ({ method, route, status, seconds }) =>
    duration.observe({ method: METHODS.has(method) ? method : 'OTHER', route, status: String(status) }, seconds);
}

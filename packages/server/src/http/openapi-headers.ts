import type { Route } from './routes.ts';

type Header = { description: string; required?: boolean; schema: Record<string, unknown> };

/** The response headers the service sends, documented once as components (http/server.ts, limits, idempotency). */
export const HEADER_COMPONENTS: Record<string, Header> = {
  'X-Request-Id': {
    description:
      'The id of this request: yours when you sent a plain token (up to 128 of [A-Za-z0-9_.:-]), else a UUID we made. Support finds a request by it.',
    required: true,
    schema: { type: 'string', pattern: '^[\\w.:-]{1,128}$', example: '5b0e8f7c-3a1d-4c2b-9e6f-0a1b2c3d4e5f' },
  },
  RateLimit: {
    description:
      'The limit this request counted against (draft-ietf-httpapi-ratelimit-headers): "key" or "ip", the requests left (r) and the seconds until a slot frees (t).',
    schema: { type: 'string', example: '"key";r=29;t=60' },
  },
  'RateLimit-Policy': {
    description: 'The policy: "key" (per API key, by tier) or "ip" (anonymous), its quota (q) per window of w seconds.',
    schema: { type: 'string', example: '"key";q=30;w=60' },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'string', pattern: '^[0-9]+$', example: '10' },
  },
  'Idempotent-Replayed': {
    description: 'Present (true) when this is the stored response of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  Allow: {
    description: 'The methods this path takes.',
    required: true,
    schema: { type: 'string', example: 'GET, POST' },
  },
  'WWW-Authenticate': {
    description:
      'The Bearer challenge (RFC 6750), with error="invalid_token" when a key was sent and is not valid or revoked.',
    required: true,
    schema: { type: 'string', example: 'Bearer realm="attestation-service", error="invalid_token"' },
  },
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The headers of one response of a route: which of HEADER_COMPONENTS the server sends with that status. */
export function headersFor(route: Route, status: number): Record<string, unknown> {
  const names = ['X-Request-Id'];
  // the limits run in the procedure: a 405 is answered before, and probes are never limited
  if (!route.probe && status !== 405) names.push('RateLimit', 'RateLimit-Policy');
  if (status === 429 || status === 503 || (status === 409 && route.method !== 'GET')) names.push('Retry-After');
  if (status < 300 && route.method !== 'GET') names.push('Idempotent-Replayed');
  if (status === 405) names.push('Allow');
  if (status === 401) names.push('WWW-Authenticate');
  return Object.fromEntries(names.map((name) => [name, ref(name)]));
}

/** The Idempotency-Key parameter of a mutation, with the rule idempotency/service.ts enforces. */
export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    '1 to 255 visible ASCII characters (no spaces); a retry with the same key and body replays the first response for 24 h.',
  schema: { type: 'string', pattern: '^[\\x21-\\x7E]{1,255}$', example: 'order-4711-attest' },
};

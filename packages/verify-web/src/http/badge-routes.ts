import type { IncomingMessage, ServerResponse } from 'node:http';
import { badgeJson, errorBody } from '../badge/json.ts';
import { badgeSvg } from '../badge/svg.ts';
import type { Verifier } from '../verdict/verify.ts';
import { BADGE_HEADERS, BADGE_MAX_AGE_SECONDS, PREFLIGHT_HEADERS } from './headers.ts';
import type { LimitVerdict } from './limit.ts';
import { send } from './respond.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const SVG_TYPE = 'image/svg+xml; charset=utf-8';
const CACHE = `public, max-age=${BADGE_MAX_AGE_SECONDS}`;

export interface BadgeDeps {
  verifier: Verifier;
  verifyBaseUrl: string;
  limit: (ip: string) => Promise<LimitVerdict>;
}

/**
 * `GET /api/attestation/<uid>` (JSON) and `/api/attestation/<uid>/badge.svg`: public, CORS open, cacheable for a
 * minute with an ETag. An unknown or malformed uid is a 404 (JSON error, or the "not found" badge), never a 500.
 */
export async function serveBadge(req: IncomingMessage, res: ServerResponse, deps: BadgeDeps, uid: string, format: 'json' | 'svg', ip: string): Promise<void> {
  if (req.method === 'OPTIONS') return send(req, res, { status: 204, headers: PREFLIGHT_HEADERS });
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return send(req, res, { status: 405, headers: { ...BADGE_HEADERS, Allow: 'GET, HEAD, OPTIONS', 'Content-Type': JSON_TYPE }, body: errorBody('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; use GET.`) });
  }
  const limited = await deps.limit(ip);
  if (!limited.allowed) {
    const body = errorBody('RATE_LIMITED', `Too many badge requests from your address: ${limited.limit} per minute. Retry in ${limited.retryAfterSeconds} s.`, { limit: limited.limit, windowSeconds: 60, retryAfterSeconds: limited.retryAfterSeconds });
    return send(req, res, { status: 429, headers: { ...BADGE_HEADERS, ...limited.headers, 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store' }, body });
  }
  const verdict = await deps.verifier.verify(uid, ip);
  const headers = { ...BADGE_HEADERS, ...limited.headers };
  if (verdict.state === 'unavailable') {
    const retry = { ...headers, 'Cache-Control': 'no-store', 'Retry-After': '5' };
    if (format === 'svg') return send(req, res, { status: 503, headers: { ...retry, 'Content-Type': SVG_TYPE }, body: badgeSvg(verdict) });
    return send(req, res, { status: 503, headers: { ...retry, 'Content-Type': JSON_TYPE }, body: errorBody('UNAVAILABLE', 'The chain or the attestation service did not answer in time; try again shortly.', { uid }) });
  }
  const status = verdict.state === 'not-found' ? 404 : 200;
  if (format === 'svg') return send(req, res, { status, headers: { ...headers, 'Content-Type': SVG_TYPE, 'Cache-Control': CACHE }, body: badgeSvg(verdict), validate: true });
  const json = badgeJson(verdict, deps.verifyBaseUrl);
  const body = json ? JSON.stringify(json) : errorBody('NOT_FOUND', 'No attestation with this uid.', { uid });
  return send(req, res, { status, headers: { ...headers, 'Content-Type': JSON_TYPE, 'Cache-Control': CACHE }, body, validate: true });
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { badgeJson, errorBody } from '../badge/json.ts';
import { badgeSvg } from '../badge/svg.ts';
import { tooManyLookups } from '../records.ts';
import type { Verifier } from '../verdict/verify.ts';
import { BADGE_HEADERS, BADGE_MAX_AGE_SECONDS, PREFLIGHT_HEADERS } from './headers.ts';
import type { LimitVerdict } from './limit.ts';
import { send } from './respond.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const SVG_TYPE = 'image/svg+xml; charset=utf-8';
const CACHE = `public, max-age=${BADGE_MAX_AGE_SECONDS}`;

interface BadgeDeps {
  verifier: Verifier;
  verifyBaseUrl: string;
  limit: (ip: string) => Promise<LimitVerdict>;
}

/**
 * `GET /api/attestation/<uid>` (JSON) and `/api/attestation/<uid>/badge.svg`: public, CORS open, cacheable for a
 * minute with an ETag. An unknown or malformed uid is a 404 (JSON error, or the "not found" badge), never a 500.
 * Whatever the answer, an image URL answers an image: a refusal (429) or a failure (503) is a badge too.
 */
export async function serveBadge(
  req: IncomingMessage,
  res: ServerResponse,
  deps: BadgeDeps,
  uid: string,
  format: 'json' | 'svg',
  ip: string,
): Promise<void> {
  if (req.method === 'OPTIONS') return send(req, res, { status: 204, headers: PREFLIGHT_HEADERS });
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return send(req, res, {
      status: 405,
      headers: { ...BADGE_HEADERS, Allow: 'GET, HEAD, OPTIONS', 'Content-Type': JSON_TYPE },
      body: errorBody('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; use GET.`),
    });
  }
  const limited = await deps.limit(ip);
  if (!limited.allowed) {
    const { limit, retryAfterSeconds } = limited;
    const message = `Too many badge requests from your address: ${limit} per minute. Retry in ${retryAfterSeconds} s.`;
    return sendRefusal(
      req,
      res,
      format,
      429,
      limited.headers,
      errorBody('RATE_LIMITED', message, { limit, windowSeconds: 60, retryAfterSeconds }),
    );
  }
  const verdict = await deps.verifier.verify(uid, ip);
  const headers = { ...BADGE_HEADERS, ...limited.headers };
  if (verdict.state === 'rate-limited') {
    const seconds = verdict.retryAfterSeconds ?? 60;
    const body = errorBody('RATE_LIMITED', tooManyLookups(seconds), { retryAfterSeconds: seconds });
    return sendRefusal(req, res, format, 429, { ...headers, 'Retry-After': String(seconds) }, body);
  }
  if (verdict.state === 'unavailable') {
    const body = errorBody(
      'UNAVAILABLE',
      'The chain or the attestation service did not answer in time; try again shortly.',
      { uid },
    );
    return sendRefusal(req, res, format, 503, { ...headers, 'Retry-After': '5' }, body);
  }
  const status = verdict.state === 'not-found' ? 404 : 200;
  if (format === 'svg')
    return send(req, res, {
      status,
      headers: { ...headers, 'Content-Type': SVG_TYPE, 'Cache-Control': CACHE },
      body: badgeSvg(verdict),
      validate: true,
    });
  const json = badgeJson(verdict, deps.verifyBaseUrl);
  const body = json ? JSON.stringify(json) : errorBody('NOT_FOUND', 'No attestation with this uid.', { uid });
  return send(req, res, {
    status,
    headers: { ...headers, 'Content-Type': JSON_TYPE, 'Cache-Control': CACHE },
    body,
    validate: true,
  });
}

const REFUSAL_BADGE = { 429: 'rate-limited', 503: 'unavailable' } as const;

/** A 429 or 503, never cached: the JSON error body, or for badge.svg the badge that says so ("retry later"). */
function sendRefusal(
  req: IncomingMessage,
  res: ServerResponse,
  format: 'json' | 'svg',
  status: 429 | 503,
  headers: Record<string, string>,
  json: string,
): void {
  const all = { ...BADGE_HEADERS, ...headers, 'Cache-Control': 'no-store' };
  if (format === 'json') return send(req, res, { status, headers: { ...all, 'Content-Type': JSON_TYPE }, body: json });
  return send(req, res, {
    status,
    headers: { ...all, 'Content-Type': SVG_TYPE },
    body: badgeSvg({ state: REFUSAL_BADGE[status], record: null }),
  });
}

/**
 * Response headers by kind. Pages: a CSP with no inline script or style, no connections from scripts at all
 * (the content check must never upload anything), and no framing. Badges (SVG, JSON): open to every origin and
 * embeddable anywhere, still sniff-proof and inert.
 */
const COMMON = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

export const PAGE_HEADERS: Record<string, string> = {
  ...COMMON,
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
};

export const CORS_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag, Retry-After, RateLimit, RateLimit-Policy',
};

export const PREFLIGHT_HEADERS: Record<string, string> = {
  ...CORS_HEADERS,
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'If-None-Match, Content-Type, Accept',
  'Access-Control-Max-Age': '86400',
};

export const BADGE_HEADERS: Record<string, string> = {
  ...COMMON,
  ...CORS_HEADERS,
  'Content-Security-Policy': "default-src 'none'",
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

export const ASSET_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

/** How long a badge may be reused by browsers and CDNs: short, so a revocation shows within a minute. */
export const BADGE_MAX_AGE_SECONDS = 60;

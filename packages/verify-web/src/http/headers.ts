/**
 * Response headers by kind. Pages: a CSP with no inline script or style, no connections from scripts at all
 * (the content check must never upload anything), and no framing; their one worker, the C2PA reader, may start.
 * Badges (SVG, JSON): open to every origin and embeddable anywhere, still sniff-proof and inert.
 */
const COMMON = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

export const PAGE_HEADERS: Record<string, string> = {
  ...COMMON,
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'none'; worker-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
};

/**
 * The C2PA reader's worker runs under the policy it is served with, not the page's (CSP 3): it alone may fetch, from
 * this app only (c2pa-rs as WebAssembly, which it alone may compile). It is handed the file; the page keeps
 * connect-src 'none', and c2pa-rs reaches no third party for remote manifests or OCSP.
 */
export const WORKER_CSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'";

const CORS_HEADERS: Record<string, string> = {
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
  '.wasm': 'application/wasm',
};

/** How long a badge may be reused by browsers and CDNs: short, so a revocation shows within a minute. */
export const BADGE_MAX_AGE_SECONDS = 60;

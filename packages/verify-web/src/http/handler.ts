import type { IncomingMessage, ServerResponse } from 'node:http';
import { isContentHash, normalizeContentHash } from '@attestation-service/protocol';
import { checkPage, type CheckResult } from '../html/check-page.ts';
import { attestationPage } from '../html/attestation-page.ts';
import { rateLimitedFor, type RecordSource } from '../records.ts';
import type { Verifier } from '../verdict/verify.ts';
import { serveAsset } from './assets.ts';
import { serveBadge } from './badge-routes.ts';
import { PAGE_HEADERS } from './headers.ts';
import type { LimitVerdict } from './limit.ts';
import { clientIp, send } from './respond.ts';

interface HandlerDeps {
  verifier: Verifier;
  records: RecordSource;
  verifyBaseUrl: string;
  /** How many proxies in front append to X-Forwarded-For. */
  trustProxy: number;
  limit: (ip: string) => Promise<LimitVerdict>;
}

const BADGE_PATH = /^\/api\/attestation\/([^/]{1,100})(\/badge\.svg)?$/;

async function checkResult(records: RecordSource, hash: string | null, ip: string): Promise<CheckResult> {
  if (hash === null || hash === '') return { kind: 'form' };
  const trimmed = hash.trim();
  if (!isContentHash(trimmed)) return { kind: 'invalid', hash: trimmed.slice(0, 80) };
  const normalized = normalizeContentHash(trimmed);
  try {
    return { kind: 'results', hash: normalized, records: await records.search(normalized, ip) };
  } catch (error) {
    const retryAfterSeconds = rateLimitedFor(error);
    return retryAfterSeconds
      ? { kind: 'rate-limited', hash: normalized, retryAfterSeconds }
      : { kind: 'unavailable', hash: normalized };
  }
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a malformed escape is simply an unknown uid
  }
}

const STATUS_OF = {
  verified: 200,
  revoked: 200,
  mismatch: 200,
  'not-found': 404,
  unavailable: 503,
  'rate-limited': 429,
} as const;
const CHECK_STATUS_OF = { form: 200, results: 200, invalid: 400, unavailable: 503, 'rate-limited': 429 } as const;

/** A page that answers 429 says when to come back, as the API said it (Retry-After). */
const retryAfter = (seconds: number | undefined): Record<string, string> =>
  seconds ? { 'Retry-After': String(seconds) } : {};

/** Whether a request comes with a body (declared by its length or sent chunked). */
function carriesBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** The verification app's routes: pages, static assets, the badge API and a liveness probe. */
export function createVerifyHandler(deps: HandlerDeps) {
  const page = (status: number, body: string, extra: Record<string, string> = {}) => ({
    status,
    headers: { ...PAGE_HEADERS, ...extra },
    body,
  });
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // no route here takes a body: one sent anyway is never read, and its connection ends with the answer
    if (carriesBody(req)) res.setHeader('Connection', 'close');
    const url = new URL(req.url ?? '/', 'http://verify.invalid');
    const path = url.pathname;
    const ip = clientIp(req, deps.trustProxy);
    const badge = BADGE_PATH.exec(path);
    if (badge) return serveBadge(req, res, deps, decode(badge[1]!), badge[2] ? 'svg' : 'json', ip);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(req, res, {
        status: 405,
        headers: { ...PAGE_HEADERS, Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' },
        body: 'Method not allowed',
      });
    }
    if (path === '/healthz')
      return send(req, res, {
        status: 200,
        headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
        body: '{"status":"ok"}',
      });
    if (path.startsWith('/assets/') && (await serveAsset(req, res, path.slice('/assets/'.length)))) return;
    if (path === '/' || path === '/check') {
      const result = await checkResult(deps.records, url.searchParams.get('hash'), ip);
      const wait = result.kind === 'rate-limited' ? result.retryAfterSeconds : undefined;
      return send(
        req,
        res,
        page(CHECK_STATUS_OF[result.kind], checkPage(result), { 'Cache-Control': 'no-cache', ...retryAfter(wait) }),
      );
    }
    const segment = path.slice(1);
    if (segment.length > 0 && segment.length <= 100 && !segment.includes('/')) {
      const verdict = await deps.verifier.verify(decode(segment), ip);
      const headers = { 'Cache-Control': 'no-cache', ...retryAfter(verdict.retryAfterSeconds) };
      return send(req, res, page(STATUS_OF[verdict.state], attestationPage(verdict, deps.verifyBaseUrl), headers));
    }
    return send(
      req,
      res,
      page(
        404,
        attestationPage(
          {
            state: 'not-found',
            uid: path.slice(1, 80),
            record: null,
            checks: [],
            chainRevokedAt: null,
            anchor: null,
            statusList: null,
          },
          deps.verifyBaseUrl,
        ),
      ),
    );
  };
}

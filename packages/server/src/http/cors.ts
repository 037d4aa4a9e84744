import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors.ts';
import { headerOf } from './request.ts';
import { matchRoute, type Route } from './routes.ts';

/** Who may call a path from a browser on another origin. */
type CorsAccess = 'public' | 'gated' | 'none';

/** What a browser may send beyond the simple headers, and read back from an answer. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept, Idempotency-Key, X-Request-Id, traceparent';
const EXPOSED_HEADERS =
  'X-Request-Id, RateLimit, RateLimit-Policy, Retry-After, Idempotent-Replayed, WWW-Authenticate, Content-Disposition';
/** How long a browser may keep a preflight's answer: a day (browsers cap it lower: Chromium 2 h, Firefox 24 h). */
const PREFLIGHT_MAX_AGE = '86400';

/**
 * Cross-origin calls (docs/decisions.md, "CORS"): public reads answer any origin (`*`, never with credentials, so no
 * cookie-authenticated answer is ever readable cross-site); calls that take a key answer only the origins the operator
 * allows (CORS_ALLOWED_ORIGINS), since a key in a page is that site's to use; the dashboard's own paths (cookies) and
 * anything else answer no origin at all.
 */
export function createCors(opts: {
  /** The router's REST routes: a route that takes no key is a public read (its procedure too, on /trpc). */
  routes: Route[];
  /** Origins whose pages may call with a key (CORS_ALLOWED_ORIGINS). */
  allowedOrigins: ReadonlySet<string>;
  /** Paths outside the router that are called with a key from browsers (a mount's), by pattern. */
  gatedMounts: RegExp[];
}) {
  const publicProcedures = new Set(opts.routes.filter((r) => !r.protect).map((r) => r.procedure));
  const gatedProcedures = new Set(opts.routes.filter((r) => r.protect).map((r) => r.procedure));

  function accessOf(pathname: string, method: string): { access: CorsAccess; methods: string[] } {
    if (pathname === '/openapi.json') return { access: 'public', methods: ['GET', 'HEAD'] };
    if (pathname.startsWith('/trpc/')) {
      const names = pathname.slice('/trpc/'.length).split(',');
      if (names.every((n) => publicProcedures.has(n))) return { access: 'public', methods: ['GET', 'POST'] };
      if (names.every((n) => publicProcedures.has(n) || gatedProcedures.has(n)))
        return { access: 'gated', methods: ['GET', 'POST'] };
      return { access: 'none', methods: [] };
    }
    if (opts.gatedMounts.some((p) => p.test(pathname))) return { access: 'gated', methods: ['POST'] };
    const match = matchRoute(opts.routes, method, pathname);
    if (!match) return { access: 'none', methods: [] };
    if ('allowed' in match) return { access: 'none', methods: match.allowed };
    // the path's every method: no route takes TRACE, so the match answers with the methods it allows
    const sibling = matchRoute(opts.routes, 'TRACE', pathname);
    const methods = sibling && 'allowed' in sibling ? sibling.allowed : [match.route.method];
    return { access: match.route.protect ? 'gated' : 'public', methods };
  }

  function allowOrigin(origin: string, access: CorsAccess): Record<string, string> | undefined {
    if (access === 'public') return { 'Access-Control-Allow-Origin': '*' };
    if (access === 'gated' && opts.allowedOrigins.has(origin))
      return { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' };
    return undefined;
  }

  return {
    /** The CORS headers of an answer to `req`, set before it is served (so its errors carry them too). */
    decorate(req: IncomingMessage, res: ServerResponse, pathname: string): void {
      const origin = headerOf(req, 'origin');
      if (!origin) return;
      const allowed = allowOrigin(origin, accessOf(pathname, req.method ?? 'GET').access);
      if (!allowed) return;
      for (const [name, value] of Object.entries(allowed)) res.setHeader(name, value);
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    },

    /** Answers an OPTIONS request (a preflight or not); true when it did. */
    preflight(req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
      if (req.method !== 'OPTIONS') return false;
      const origin = headerOf(req, 'origin');
      const asked = headerOf(req, 'access-control-request-method');
      const { access, methods } = accessOf(pathname, asked ?? 'GET');
      if (methods.length === 0) throw new AppError('NOT_FOUND', `No route ${pathname}. See /openapi.json for the API.`);
      res.setHeader('Allow', [...methods, 'OPTIONS'].join(', '));
      if (origin && asked) {
        const allowed = allowOrigin(origin, access);
        if (!allowed)
          throw new AppError(
            'FORBIDDEN',
            access === 'gated'
              ? `${origin} may not call ${pathname} from a browser: calls with a key are answered only to the origins the operator allows (CORS_ALLOWED_ORIGINS).`
              : `${pathname} is not called from other origins.`,
            { origin },
          );
        for (const [name, value] of Object.entries(allowed)) res.setHeader(name, value);
        res.setHeader('Access-Control-Allow-Methods', methods.join(', '));
        res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
        res.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE);
      }
      res.statusCode = 204;
      res.end();
      return true;
    },
  };
}

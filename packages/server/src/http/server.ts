import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { TRPCError, type AnyRouter, type inferRouterContext } from '@trpc/server';
import { AppError, describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { DRAIN_LIMIT_BYTES } from './body.ts';
import { answerClientError } from './client-error.ts';
import type { RequestContext } from './context.ts';
import { serveDocs } from './docs.ts';
import { toErrorResponse } from './error-response.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { loggedPath } from './logged-path.ts';
import { clientIpOf, headerOf, requestIdOf } from './request.ts';
import { createCors } from './cors.ts';
import { lazyInput, procedureCaller, writeJson, writeJsonText } from './dispatch.ts';
import { collectRoutes, matchRoute } from './routes.ts';
import { routeLabeller, type RouteLabel } from './route-label.ts';
import { serveTrpc } from './trpc-surface.ts';
import { sendStreamed, StreamedBody } from './streamed.ts';
import { JsonText } from './json-text.ts';
import { TextBody } from './text-body.ts';
import { tracer, type ServerSpan } from '../tracing/tracing.ts';

/**
 * What the composition root hands the HTTP layer: the router to serve, and the services every request's context
 * carries to its procedures (typed by the router's own context, so the two cannot disagree).
 */
export interface ApiParts<TRouter extends AnyRouter> {
  router: TRouter;
  services: inferRouterContext<TRouter>['services'];
}

/**
 * A handler the composition root mounts under a path prefix, outside the router: the dashboard's sign-in endpoints
 * (better-auth) and its static pages. It gets the client address as this layer judged it (TRUST_PROXY).
 */
export interface Mount {
  prefix: string;
  /** Paths it serves when they are not the ones under `prefix` (a route with a parameter); `prefix` then names it. */
  pattern?: RegExp;
  /** Called with a key from browsers on other origins (CORS for the allowed origins); else same-origin only. */
  browserCalls?: 'gated';
  handle(req: IncomingMessage, res: ServerResponse, request: { ip: string; log: Logger }): Promise<void>;
}

function sendError(res: ServerResponse, error: unknown): void {
  const { status, body, headers } = toErrorResponse(error);
  if (res.headersSent) return void res.destroy();
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(body));
}

/** One answered request, for metrics: `route` is a pattern or a procedure name (route-label.ts), never the raw path. */
export interface AnsweredRequest {
  method: string;
  route: string;
  status: number;
  seconds: number;
}

/** The API's request handler: the router's REST routes (as trpc-to-openapi describes them), /trpc, /openapi.json and /docs. */
export function createApiHandler<TRouter extends AnyRouter>(
  { router, services }: ApiParts<TRouter>,
  opts: {
    publicBaseUrl: string;
    /** TRUST_PROXY: how many proxies in front append to X-Forwarded-For. */
    trustProxy: number;
    log: Logger;
    proxyToken?: string | undefined;
    /** Served by the longest matching prefix, before the router's routes. */
    mounts?: Mount[];
    /** Origins whose pages may call with a key (CORS_ALLOWED_ORIGINS); public reads answer any origin. */
    corsAllowedOrigins?: readonly string[];
    /** Told of every answered request, when its `request` line is logged (the metrics' histogram). */
    onRequest?: (request: AnsweredRequest) => void;
    /** Path prefixes whose next segment is a credential: the request line logs the prefix only (logged-path.ts). */
    credentialPaths?: readonly string[];
  },
): (req: IncomingMessage, res: ServerResponse) => void {
  const mounts = [...(opts.mounts ?? [])].sort((a, b) => b.prefix.length - a.prefix.length);
  const credentialPaths = opts.credentialPaths ?? [];
  const routes = collectRoutes(router);
  const callProcedure = procedureCaller(router);
  const cors = createCors({
    routes,
    allowedOrigins: new Set(opts.corsAllowedOrigins ?? []),
    gatedMounts: mounts.flatMap((m) => (m.browserCalls === 'gated' && m.pattern ? [m.pattern] : [])),
  });
  const labelTrpc = routeLabeller(router);
  const openApiJson = JSON.stringify(buildOpenApiDocument(router, routes, { baseUrl: opts.publicBaseUrl }));

  type Context = RequestContext<ApiParts<TRouter>['services']>;
  const createContext = (req: IncomingMessage, requestId: string, log: Logger): Context => ({
    services,
    requestId,
    log,
    ip: clientIpOf(req, opts.trustProxy, opts.proxyToken),
    authorization: headerOf(req, 'authorization'),
    idempotencyKey: headerOf(req, 'idempotency-key'),
    accept: headerOf(req, 'accept'),
    cookie: headerOf(req, 'cookie'),
    origin: headerOf(req, 'origin'),
    fetchSite: headerOf(req, 'sec-fetch-site'),
    accountId: headerOf(req, 'x-account-id'),
    responseHeaders: {},
  });

  async function serveRest(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    ctx: Context,
    label: RouteLabel,
  ): Promise<void> {
    const match = matchRoute(routes, req.method ?? 'GET', url.pathname);
    if (!match)
      throw new AppError('NOT_FOUND', `No route ${req.method} ${url.pathname}. See /openapi.json for the API.`);
    if ('allowed' in match) {
      res.setHeader('Allow', match.allowed.join(', '));
      throw new AppError(
        'METHOD_NOT_ALLOWED',
        `${req.method} is not allowed on ${url.pathname}; use ${match.allowed.join(' or ')}.`,
        { allowed: match.allowed },
      );
    }
    const { route, params } = match;
    label.route = route.path;
    try {
      // the body is read when the chain asks for the input: after authentication and the rate limit
      const data = await callProcedure(route.procedure, ctx, lazyInput(req, route.method, url.searchParams, params));
      // a streamed body (the audit export): see docs/decisions.md, "Audit export"
      if (data instanceof StreamedBody) return await sendStreamed(req, res, data, ctx.responseHeaders);
      if (data instanceof JsonText) return writeJsonText(res, route.successStatus, data.text, ctx.responseHeaders);
      if (data instanceof TextBody) {
        for (const [name, value] of Object.entries({ ...ctx.responseHeaders, ...data.headers }))
          res.setHeader(name, value);
        res.setHeader('Content-Type', data.contentType);
        res.setHeader('Content-Length', Buffer.byteLength(data.text));
        res.statusCode = route.successStatus;
        return void res.end(data.text);
      }
      writeJson(res, route.successStatus, route.successStatus === 204 ? undefined : data, ctx.responseHeaders);
    } catch (error) {
      if (!res.headersSent) for (const [name, value] of Object.entries(ctx.responseHeaders)) res.setHeader(name, value);
      throw error;
    }
  }

  async function route(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    log: Logger,
    label: RouteLabel,
  ): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const { pathname } = url;
    if (cors.preflight(req, res, pathname)) return void (label.route = 'OPTIONS');
    cors.decorate(req, res, pathname);
    if (pathname === '/openapi.json' && (req.method === 'GET' || req.method === 'HEAD')) {
      label.route = pathname;
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.end(openApiJson);
      return;
    }
    const docs = pathname === '/docs' || pathname.startsWith('/docs/') || pathname === '/favicon.ico';
    if (docs && req.method === 'GET' && (await serveDocs(pathname, res))) return void (label.route = '/docs');
    const mount = mounts.find((m) =>
      m.pattern ? m.pattern.test(pathname) : pathname === m.prefix || pathname.startsWith(`${m.prefix}/`),
    );
    if (mount) {
      label.route = mount.prefix;
      return mount.handle(req, res, { ip: clientIpOf(req, opts.trustProxy, opts.proxyToken), log });
    }
    const ctx = createContext(req, requestId, log);
    if (pathname.startsWith('/trpc/')) {
      label.route = labelTrpc(pathname);
      return serveTrpc(router, req, res, url, ctx);
    }
    await serveRest(req, res, url, ctx, label);
  }

  return (req, res) => {
    const traceparent = headerOf(req, 'traceparent');
    const caller = traceparent && tracer().on ? clientIpOf(req, opts.trustProxy, opts.proxyToken) : undefined;
    const span = tracer().server(req.method ?? 'GET', traceparent, caller);
    span.run(() => serve(req, res, span));
  };

  function serve(req: IncomingMessage, res: ServerResponse, span: ServerSpan): void {
    const started = performance.now();
    const requestId = requestIdOf(req);
    // every line logged while serving this request carries its id (docs/decisions.md, "API surface")
    const log = opts.log.child({ requestId });
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // a body this large is never read (docs/decisions.md, "Input rules": it may be answered, 401 say, before it would
    // be): no keep-alive
    if (Number(req.headers['content-length'] ?? 0) > DRAIN_LIMIT_BYTES) res.setHeader('Connection', 'close');
    const label: RouteLabel = { route: '(unmatched)' };
    res.on('finish', () => {
      const ms = performance.now() - started;
      log.info(
        { method: req.method, path: loggedPath(req.url, credentialPaths), status: res.statusCode, ms: Math.round(ms) },
        'request',
      );
      opts.onRequest?.({ method: req.method ?? '', route: label.route, status: res.statusCode, seconds: ms / 1000 });
      span.end(label.route, res.statusCode);
    });
    route(req, res, requestId, log, label).catch((error: unknown) => {
      if (
        !(error instanceof AppError || (error instanceof TRPCError && error.cause instanceof AppError)) &&
        toErrorResponse(error).status >= 500
      ) {
        log.error(
          { error: describeError(error instanceof TRPCError ? (error.cause ?? error) : error) },
          'request failed',
        );
      }
      if (error instanceof AppError && error.errorCode === 'PAYLOAD_TOO_LARGE') res.setHeader('Connection', 'close');
      sendError(res, error);
    });
  }
}

/** Listens on port/host; resolves once listening. Port 0 picks a free port. */
export function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  port: number,
  host: string,
): Promise<Server> {
  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 30_000, headersTimeout: 20_000 }, handler);
  server.on('clientError', answerClientError);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

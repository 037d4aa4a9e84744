import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRPCError, type AnyRouter } from '@trpc/server';
import { AppError, describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { ServerSpan } from '../tracing/tracing.ts';
import { DRAIN_LIMIT_BYTES } from './body.ts';
import type { RequestContext } from './context.ts';
import type { createCors } from './cors.ts';
import { lazyInput, writeJson, writeJsonText, type ProcedureCaller } from './dispatch.ts';
import { serveDocs } from './docs.ts';
import { toErrorResponse } from './error-response.ts';
import { JsonText } from './json-text.ts';
import { loggedPath } from './logged-path.ts';
import { clientIpOf, headerOf, requestIdOf } from './request.ts';
import type { RouteLabel } from './route-label.ts';
import { matchRoute, type Route } from './routes.ts';
import type { ApiHandlerOptions, Mount } from './server.ts';
import { sendStreamed, StreamedBody } from './streamed.ts';
import { TextBody } from './text-body.ts';
import { serveTrpc } from './trpc-surface.ts';

/**
 * What the API's handler prepares once (http/server.ts) and each step of a request reads: the steps below are plain
 * functions handed this, so serving a request makes no closure of its own beyond those it always made.
 */
export interface Api {
  router: AnyRouter;
  services: unknown;
  opts: ApiHandlerOptions;
  /** Longest prefix first. */
  mounts: Mount[];
  credentialPaths: readonly string[];
  routes: Route[];
  callProcedure: ProcedureCaller;
  cors: ReturnType<typeof createCors>;
  labelTrpc: (pathname: string) => string;
  openApiJson: string;
  /** The `request` lines' logger: their fields are ours (an id, a method, the logged path, a status, a time), so it
   * skips the redaction that every other line pays for. */
  requestLog: Logger;
}

/** One request, from its id and headers to its `request` log line: routed, and any failure answered as an error. */
export function serve(api: Api, req: IncomingMessage, res: ServerResponse, span: ServerSpan): void {
  const started = performance.now();
  // every line logged while serving this request carries its id (docs/decisions.md, "API surface")
  const requestId = requestIdOf(req);
  res.setHeader('X-Request-Id', requestId);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // a body this large is never read (docs/decisions.md, "Input rules": it may be answered, 401 say, before it would
  // be): no keep-alive
  if (Number(req.headers['content-length'] ?? 0) > DRAIN_LIMIT_BYTES) res.setHeader('Connection', 'close');
  const label: RouteLabel = { route: '(unmatched)' };
  res.on('finish', () => logAnswered(api, req, res, requestId, label, span, started));
  route(api, req, res, requestId, label).catch((error: unknown) => answerFailure(api, res, requestId, error));
}

/** The `request` line of an answered request, the metrics' count of it, and the end of its span. */
function logAnswered(
  api: Api,
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  label: RouteLabel,
  span: ServerSpan,
  started: number,
): void {
  const ms = performance.now() - started;
  const path = loggedPath(req.url, api.credentialPaths);
  api.requestLog.info({ requestId, method: req.method, path, status: res.statusCode, ms: Math.round(ms) }, 'request');
  api.opts.onRequest?.({ method: req.method ?? '', route: label.route, status: res.statusCode, seconds: ms / 1000 });
  span.end(label.route, res.statusCode);
}

/** Whether a failure is logged as one: a 5xx answer that no AppError of ours explains. */
export function unexpectedFailure(error: unknown): boolean {
  return (
    !(error instanceof AppError || (error instanceof TRPCError && error.cause instanceof AppError)) &&
    toErrorResponse(error).status >= 500
  );
}

/** Answers a request that failed, logging what was not expected; a body too large closes the connection. */
function answerFailure(api: Api, res: ServerResponse, requestId: string, error: unknown): void {
  if (unexpectedFailure(error)) {
    const described = describeError(error instanceof TRPCError ? (error.cause ?? error) : error);
    api.opts.log.error({ requestId, error: described }, 'request failed');
  }
  if (error instanceof AppError && error.errorCode === 'PAYLOAD_TOO_LARGE') res.setHeader('Connection', 'close');
  sendError(res, error);
}

function sendError(res: ServerResponse, error: unknown): void {
  const { status, body, headers } = toErrorResponse(error);
  if (res.headersSent) return void res.destroy();
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(body));
}

/** The mount serving a path: the first (longest prefix) whose pattern matches it, or whose prefix it is or is under. */
export function mountFor(mounts: readonly Mount[], pathname: string): Mount | undefined {
  for (let i = 0; i < mounts.length; i++) {
    const m = mounts[i]!;
    if (m.pattern ? m.pattern.test(pathname) : pathname === m.prefix || pathname.startsWith(`${m.prefix}/`)) return m;
  }
  return undefined;
}

/** The context every procedure of a request sees: the services, its id, the client address and the headers it reads. */
export function contextOf(api: Api, req: IncomingMessage, requestId: string): RequestContext<unknown> {
  return {
    services: api.services,
    requestId,
    ip: clientIpOf(req, api.opts.trustProxy, api.opts.proxyToken),
    authorization: headerOf(req, 'authorization'),
    idempotencyKey: headerOf(req, 'idempotency-key'),
    accept: headerOf(req, 'accept'),
    cookie: headerOf(req, 'cookie'),
    origin: headerOf(req, 'origin'),
    fetchSite: headerOf(req, 'sec-fetch-site'),
    accountId: headerOf(req, 'x-account-id'),
    responseHeaders: {},
  };
}

/** Where a request goes: CORS, /openapi.json, /docs, a mount, /trpc, else the router's REST routes. */
async function route(
  api: Api,
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  label: RouteLabel,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const { pathname } = url;
  if (api.cors.preflight(req, res, pathname)) return void (label.route = 'OPTIONS');
  api.cors.decorate(req, res, pathname);
  if (pathname === '/openapi.json' && (req.method === 'GET' || req.method === 'HEAD')) {
    label.route = pathname;
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.end(api.openApiJson);
    return;
  }
  const docs = pathname === '/docs' || pathname.startsWith('/docs/') || pathname === '/favicon.ico';
  if (docs && req.method === 'GET' && (await serveDocs(pathname, res))) return void (label.route = '/docs');
  const mount = mountFor(api.mounts, pathname);
  if (mount) {
    label.route = mount.prefix;
    const log = api.opts.log.child({ requestId });
    return mount.handle(req, res, { ip: clientIpOf(req, api.opts.trustProxy, api.opts.proxyToken), log });
  }
  const ctx = contextOf(api, req, requestId);
  if (pathname.startsWith('/trpc/')) {
    label.route = api.labelTrpc(pathname);
    return serveTrpc(api.router, req, res, url, ctx);
  }
  await serveRest(api, req, res, url, ctx, label);
}

/** A REST route of the router: its procedure called with the request's input, its answer written as it comes. */
async function serveRest(
  api: Api,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ctx: RequestContext<unknown>,
  label: RouteLabel,
): Promise<void> {
  const match = matchRoute(api.routes, req.method ?? 'GET', url.pathname);
  if (!match) throw new AppError('NOT_FOUND', `No route ${req.method} ${url.pathname}. See /openapi.json for the API.`);
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
    const data = await api.callProcedure(route.procedure, ctx, lazyInput(req, route.method, url.searchParams, params));
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

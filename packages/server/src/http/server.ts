import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AnyRouter, inferRouterContext } from '@trpc/server';
import type { Logger } from '../log.ts';
import { tracer } from '../tracing/tracing.ts';
import { serve, type Api } from './api-request.ts';
import { answerClientError } from './client-error.ts';
import { createCors } from './cors.ts';
import { procedureCaller } from './dispatch.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { clientIpOf, headerOf } from './request.ts';
import { routeLabeller } from './route-label.ts';
import { collectRoutes } from './routes.ts';

/**
 * What the composition root hands the HTTP layer: the router to serve, and the services every request's context
 * carries to its procedures (typed by the router's own context, so the two cannot disagree).
 */
interface ApiParts<TRouter extends AnyRouter> {
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

/** One answered request, for metrics: `route` is a pattern or a procedure name (route-label.ts), never the raw path. */
export interface AnsweredRequest {
  method: string;
  route: string;
  status: number;
  seconds: number;
}

/** How the API's handler is set up (the composition root reads them from the configuration). */
export interface ApiHandlerOptions {
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
}

/**
 * The API's request handler: the router's REST routes (as trpc-to-openapi describes them), /trpc, /openapi.json and
 * /docs. What every request needs is prepared here, once; one request's steps are in http/api-request.ts.
 */
export function createApiHandler<TRouter extends AnyRouter>(
  { router, services }: ApiParts<TRouter>,
  opts: ApiHandlerOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const api = prepareApi(router, services, opts);
  return (req, res) => {
    const traceparent = headerOf(req, 'traceparent');
    const caller = traceparent && tracer().on ? clientIpOf(req, opts.trustProxy, opts.proxyToken) : undefined;
    const span = tracer().server(req.method ?? 'GET', traceparent, caller);
    span.run(() => serve(api, req, res, span));
  };
}

/** The mounts by longest prefix, the router's routes and their callers, CORS, and the OpenAPI document as text. */
function prepareApi(router: AnyRouter, services: unknown, opts: ApiHandlerOptions): Api {
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
  const requestLog = opts.log.child({}, { redact: [] });
  return {
    router,
    services,
    opts,
    mounts,
    credentialPaths,
    routes,
    callProcedure,
    cors,
    labelTrpc,
    openApiJson,
    requestLog,
  };
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

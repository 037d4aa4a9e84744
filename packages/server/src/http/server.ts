import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { AppError } from '../errors.ts';
import { appRouter } from '../router.ts';
import type { Services } from '../services.ts';
import type { RequestContext } from '../trpc.ts';
import { readJsonBody, MAX_BODY_BYTES } from './body.ts';
import { serveDocs } from './docs.ts';
import { describeError, toErrorResponse } from './error-response.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { clientIpOf, headerOf, requestIdOf } from './request.ts';
import { collectRoutes, matchRoute } from './routes.ts';

/** Procedures whose capability a later release delivers; they answer 501 and the document says so. */
export const NOT_YET = new Set(['attestations.batch', 'attestations.revoke', 'webhooks.create', 'webhooks.list', 'webhooks.delete', 'audit.export']);

const routes = collectRoutes(appRouter);
const successStatus = new Map(routes.map((r) => [r.procedure, r.successStatus]));

function sendError(res: ServerResponse, error: unknown): void {
  const { status, body, headers } = toErrorResponse(error);
  if (res.headersSent) return void res.destroy();
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(body));
}

/** The API's request handler: REST under /v1 (the router via trpc-to-openapi), /trpc, /openapi.json and /docs. */
export function createApiHandler(services: Services): (req: IncomingMessage, res: ServerResponse) => void {
  const openApiJson = JSON.stringify(buildOpenApiDocument(appRouter, routes, { baseUrl: services.config.publicBaseUrl, version: '1.0.0', notYet: NOT_YET }));
  const errors = new WeakMap<IncomingMessage, unknown>();

  const createContext = ({ req }: { req: IncomingMessage }): RequestContext => ({
    services,
    requestId: String(req.headers['x-request-id']),
    ip: clientIpOf(req, services.config.trustProxy),
    authorization: headerOf(req, 'authorization'),
    idempotencyKey: headerOf(req, 'idempotency-key'),
    responseHeaders: {},
  });

  const restHandler = createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext,
    maxBodySize: MAX_BODY_BYTES,
    onError: ({ error, req }) => {
      errors.set(req as IncomingMessage, error);
      if (!(error instanceof AppError || error.cause instanceof AppError) && toErrorResponse(error).status >= 500) {
        services.log.error({ requestId: (req as IncomingMessage).headers['x-request-id'], error: describeError(error.cause ?? error) }, 'procedure failed');
      }
    },
    responseMeta: ({ ctx, paths, errors: failed }) => {
      const headers = (ctx as RequestContext | undefined)?.responseHeaders ?? {};
      return failed.length === 0 && paths?.[0] ? { status: successStatus.get(paths[0]) ?? 200, headers } : { headers };
    },
  });

  async function serveRest(req: IncomingMessage & { body?: unknown }, res: ServerResponse, pathname: string): Promise<void> {
    const match = matchRoute(routes, req.method ?? 'GET', pathname);
    if (!match) throw new AppError('NOT_FOUND', `No route ${req.method} ${pathname}. See /openapi.json for the API.`);
    if ('allowed' in match) {
      res.setHeader('Allow', match.allowed.join(', '));
      throw new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${pathname}; use ${match.allowed.join(' or ')}.`, { allowed: match.allowed });
    }
    if (match.route.method !== 'GET') {
      req.body = await readJsonBody(req);
      req.headers['content-type'] = 'application/json';
    }
    if (req.method === 'HEAD') req.method = 'GET';
    // trpc-to-openapi writes tRPC-shaped errors; ours replace them here, so the spec's body is all clients see
    const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
    res.end = ((chunk?: unknown) => {
      if (res.statusCode >= 400) {
        const { status, body, headers } = toErrorResponse(errors.get(req) ?? new AppError('INTERNAL_ERROR', 'Internal error'));
        res.statusCode = status;
        for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
        return end(JSON.stringify(body));
      }
      if (res.statusCode === 204) {
        res.removeHeader('Content-Type');
        return end();
      }
      return end(chunk);
    }) as typeof res.end;
    await restHandler(req, res, () => {
      throw new AppError('NOT_FOUND', `No route ${req.method} ${pathname}.`);
    });
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const { pathname } = url;
    if (pathname === '/openapi.json' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.end(openApiJson);
      return;
    }
    if ((pathname === '/docs' || pathname.startsWith('/docs/')) && req.method === 'GET' && (await serveDocs(pathname, res))) return;
    if (pathname.startsWith('/trpc/')) {
      await nodeHTTPRequestHandler({
        router: appRouter,
        req,
        res,
        path: pathname.slice('/trpc/'.length),
        maxBodySize: MAX_BODY_BYTES,
        createContext,
        responseMeta: ({ ctx, errors: failed }) => {
          const appError = failed[0] instanceof AppError ? failed[0] : failed[0]?.cause instanceof AppError ? failed[0].cause : undefined;
          return { headers: { ...ctx?.responseHeaders, ...appError?.headers } };
        },
      });
      return;
    }
    await serveRest(req, res, pathname);
  }

  return (req, res) => {
    const started = performance.now();
    const requestId = requestIdOf(req);
    req.headers['x-request-id'] = requestId;
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.on('finish', () => {
      services.log.info({ requestId, method: req.method, path: req.url?.split('?')[0], status: res.statusCode, ms: Math.round(performance.now() - started) }, 'request');
    });
    route(req, res).catch((error: unknown) => {
      if (!(error instanceof AppError)) services.log.error({ requestId, error: describeError(error) }, 'unhandled error');
      if (error instanceof AppError && error.errorCode === 'PAYLOAD_TOO_LARGE') res.setHeader('Connection', 'close');
      sendError(res, error);
    });
  };
}

/** Listens on port/host; resolves once listening. Port 0 picks a free port. */
export function listen(handler: (req: IncomingMessage, res: ServerResponse) => void, port: number, host: string): Promise<Server> {
  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 30_000, headersTimeout: 20_000 }, handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

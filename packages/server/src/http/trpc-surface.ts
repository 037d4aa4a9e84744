import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyRouter } from '@trpc/server';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import { AppError, type ErrorCode } from '../errors.ts';
import type { RequestContext } from './context.ts';
import { readBodyWithinLimit, tooLarge } from './body.ts';
import { assertJsonShape } from './input-rules.ts';
import { toErrorResponse } from './error-response.ts';
import { formattedErrorShape } from './trpc-internals.ts';

/** The most calls one /trpc batch may carry (docs/decisions.md, "API surface"). */
const MAX_BATCH_CALLS = 10;

const JSON_TYPE = /^application\/json\s*(;|$)/i;
// tRPC itself would take these as a mutation's input (FormData, a stream): our procedures take JSON only
const NON_JSON_INPUTS = /^\s*(multipart\/form-data|application\/octet-stream)\s*(;|$)/i;

/** A streamed batch (httpBatchStreamLink), as tRPC recognises one. */
function wantsStream(req: IncomingMessage): boolean {
  const accept = req.headers['trpc-accept'] ?? req.headers.accept;
  return typeof accept === 'string' && accept.split(',').some((type) => type.trim() === 'application/jsonl');
}

/**
 * Why this /trpc request is refused before tRPC sees it: a body that is not JSON, too many calls in one batch, or a
 * streamed answer, whose headers leave before its calls run, so it could never carry the RateLimit fields.
 */
function refusal(req: IncomingMessage, url: URL, path: string): AppError | undefined {
  if (wantsStream(req)) {
    return new AppError(
      'NOT_ACCEPTABLE',
      '/trpc does not stream answers (application/jsonl); use httpLink or httpBatchLink.',
      { accept: 'application/json' },
    );
  }
  const contentType = req.headers['content-type'];
  const refusedType =
    req.method === 'GET'
      ? NON_JSON_INPUTS.test(contentType ?? '')
      : contentType !== undefined && !JSON_TYPE.test(contentType);
  if (refusedType) {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send /trpc inputs as JSON with Content-Type: application/json.', {
      contentType: contentType ?? null,
    });
  }
  const calls = url.searchParams.get('batch') === '1' ? path.split(',').length : 1;
  if (calls > MAX_BATCH_CALLS) {
    // details of its own, not ErrorDetailsByCode's field problems: only a /trpc batch gets it (the SDK sends none)
    return new AppError<ErrorCode>(
      'VALIDATION_FAILED',
      `A /trpc batch holds at most ${MAX_BATCH_CALLS} calls; this one has ${calls}.`,
      { maxBatchCalls: MAX_BATCH_CALLS, calls },
    );
  }
  return undefined;
}

/** One error in tRPC's envelope (our error formatter shapes it), as tRPC answers a request it cannot run. */
function sendTrpcError(router: AnyRouter, res: ServerResponse, error: AppError): void {
  const body = JSON.stringify({ error: formattedErrorShape(router, error) });
  res.statusCode = error.status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * Reads a POST body within the limit and checks its nesting before tRPC parses it (tRPC takes a string `req.body`
 * as the body's text). A refusal waits in the context for the input rules, so it comes after authentication and the
 * rate limit, as on REST.
 */
async function readAheadOfTrpc(req: IncomingMessage, res: ServerResponse, ctx: RequestContext<unknown>) {
  const raw = await readBodyWithinLimit(req);
  const body = req as IncomingMessage & { body?: string };
  body.body = '';
  if (raw === undefined) {
    res.setHeader('Connection', 'close');
    ctx.inputRefusal = tooLarge();
    return;
  }
  try {
    assertJsonShape(raw);
  } catch (error) {
    ctx.inputRefusal = error as AppError;
    return;
  }
  body.body = raw.toString('utf8');
}

/** The router's /trpc surface: JSON in and out, at most MAX_BATCH_CALLS per batch, rate-limit fields on every answer. */
export async function serveTrpc(
  router: AnyRouter,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ctx: RequestContext<unknown>,
): Promise<void> {
  const path = url.pathname.slice('/trpc/'.length);
  const refused = refusal(req, url, path);
  if (refused) return sendTrpcError(router, res, refused);
  if (req.method !== 'GET') await readAheadOfTrpc(req, res, ctx);
  await nodeHTTPRequestHandler({
    router,
    req,
    res,
    path,
    maxBatchSize: MAX_BATCH_CALLS,
    createContext: () => ctx,
    // the first failure's own headers (Retry-After) go with it, as on REST
    responseMeta: ({ errors: failed }) => ({
      headers: { ...ctx.responseHeaders, ...(failed[0] && toErrorResponse(failed[0]).headers) },
    }),
  });
}

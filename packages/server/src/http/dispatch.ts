import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyRouter } from '@trpc/server';
import { readJsonBody } from './body.ts';
import { openApiProcedures, runProcedure } from './trpc-internals.ts';

/** Calls one REST procedure of a router by name (`attestations.create`) with a request's context and input. */
export type ProcedureCaller = (path: string, ctx: unknown, getRawInput: () => Promise<unknown>) => Promise<unknown>;

/**
 * Runs the router's procedures with their whole middleware chain (auth, limits, idempotency, zod input and
 * output), exactly as tRPC's own caller does, minus a proxy per request. See docs/decisions.md (REST dispatch).
 */
export function procedureCaller(router: AnyRouter): ProcedureCaller {
  const procedures = new Map(openApiProcedures(router).map(({ name, procedure }) => [name, procedure]));
  return (path, ctx, getRawInput) => runProcedure(procedures.get(path)!, path, ctx, getRawInput);
}

/**
 * A REST call's input, read only when the procedure's chain asks for it (after authentication and the rate limit:
 * docs/decisions.md, "Input rules"), once: the query string for a GET, else the JSON body; the path parameters win over
 * both.
 */
export function lazyInput(
  req: IncomingMessage,
  method: string,
  searchParams: URLSearchParams,
  params: Record<string, string>,
): () => Promise<unknown> {
  if (method === 'GET') {
    const input = { ...queryInput(searchParams), ...params };
    return async () => input;
  }
  let body: Promise<Record<string, unknown>> | undefined;
  return async () => ({ ...(await (body ??= readJsonBody(req))), ...params });
}

/** Query parameters as procedure input: a repeated parameter becomes an array. */
function queryInput(params: URLSearchParams): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [name, value] of params) {
    const seen = input[name];
    // pushed in place: copying the list at each repeat would cost the square of a long query string
    if (seen === undefined) input[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else input[name] = [seen, value];
  }
  return input;
}

/** Writes a JSON response (no body for 204). */
export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  writeJsonText(res, status, body === undefined ? undefined : JSON.stringify(body), headers);
}

/** Writes a response whose body is JSON text already, or its UTF-8 bytes (none for 204). */
export function writeJsonText(
  res: ServerResponse,
  status: number,
  text: string | Buffer | undefined,
  headers: Record<string, string> = {},
): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (text === undefined) return void res.end();
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

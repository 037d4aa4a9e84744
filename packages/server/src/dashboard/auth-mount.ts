import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors.ts';
import { readJsonBodyBytes } from '../http/body.ts';
import type { Mount } from '../http/server.ts';
import { assertAuthBody, assertAuthQuery } from './auth-input.ts';
import { AUTH_BASE_PATH, CLIENT_IP_HEADER, type DashboardAuth } from './auth.ts';
import { DASHBOARD_HEADERS } from './page-headers.ts';

/** The longest user agent a session keeps (real ones are under 300 characters). */
export const USER_AGENT_MAX = 512;

/** Request headers not handed on: the body goes over whole and re-encoded, so its framing no longer applies. */
const NOT_FORWARDED = new Set(['content-length', 'content-type', 'transfer-encoding', 'connection', 'keep-alive']);

/**
 * better-auth's endpoints at AUTH_BASE_PATH, behind the limits and rules of every other surface: the body is read
 * here (1 MiB, refused from its declared length), parsed as JSON, checked by the input rules and the fields' caps,
 * and better-auth gets a Request of those bytes. The client address it rate-limits and records sessions by is the
 * one the HTTP layer judged (TRUST_PROXY), never a header the caller chose. Every answer carries the dashboard's
 * headers. Errors of ours are the service's `{ code, message, details }` body. While the dashboard is `off` (its
 * origins unset in production: dashboard/origins.ts), every call answers 503 saying what to set.
 */
export function authMount(auth: DashboardAuth, publicBaseUrl: string, off?: string): Mount {
  const origin = new URL(publicBaseUrl).origin;
  return {
    prefix: AUTH_BASE_PATH,
    async handle(req, res, { ip }) {
      for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) res.setHeader(name, value);
      res.setHeader('Cache-Control', 'no-store');
      if (off) throw new AppError('SERVICE_UNAVAILABLE', off);
      const response = await auth.handler(await authRequest(req, origin, ip));
      // better-auth answers its own failures with an empty 500: ours is the API's error body, and the error is logged
      if (response.status >= 500) throw new Error(`better-auth answered ${response.status}`);
      await sendAuthResponse(req, res, response);
    },
  };
}

/** The Request better-auth sees: our judged client address, the checked query, and the checked body. */
async function authRequest(req: IncomingMessage, origin: string, ip: string): Promise<Request> {
  const url = new URL(req.url ?? '/', origin);
  assertAuthQuery(url.searchParams);
  const method = req.method ?? 'GET';
  const headers = new Headers();
  try {
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || NOT_FORWARDED.has(name) || name === CLIENT_IP_HEADER) continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
    }
  } catch {
    throw new AppError('MALFORMED_REQUEST', 'A request header holds a value HTTP does not allow.');
  }
  headers.set(CLIENT_IP_HEADER, ip);
  // better-auth stores the user agent with each session and shows it to the member: held to a sane length
  const agent = headers.get('user-agent');
  if (agent && agent.length > USER_AGENT_MAX) headers.set('user-agent', agent.slice(0, USER_AGENT_MAX));
  let body: Buffer | string | undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    // the bytes checked are the bytes handed on, not re-encoded: better-auth parses them as we did (JSON.parse of
    // their UTF-8; a BOM, which its decoder would drop, is refused here as not JSON), and a 1 MiB body is copied
    // twice less
    const { value, raw } = await readJsonBodyBytes(req);
    assertAuthBody(value);
    body = raw.length > 0 ? raw : '{}';
    headers.set('content-type', 'application/json');
  }
  return new Request(new URL(url.pathname + url.search, origin), { method, headers, body });
}

/** Writes better-auth's answer, with the dashboard's headers over any it set; its bodies are small JSON or HTML. */
async function sendAuthResponse(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  res.statusCode = response.status;
  for (const [name, value] of response.headers) if (name !== 'set-cookie') res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('Set-Cookie', cookies);
  for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) res.setHeader(name, value);
  res.setHeader('Cache-Control', 'no-store');
  res.end(req.method === 'HEAD' ? undefined : body);
}

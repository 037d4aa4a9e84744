import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The caller's request id when it is a sane token, else a new one. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** The header by which a proxy inside this process (the verification app under `serve`) proves it is one. */
export const PROXY_TOKEN_HEADER = 'x-service-proxy-token';

function carriesToken(req: IncomingMessage, token: string | undefined): boolean {
  const given = req.headers[PROXY_TOKEN_HEADER];
  if (!token || typeof given !== 'string' || given.length !== token.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(token));
}

/**
 * The client's address: the socket's, or the left-most X-Forwarded-For entry when a trusted proxy sets it (every
 * proxy with TRUST_PROXY; otherwise only a request carrying `proxyToken`, a secret that never leaves the process).
 */
export function clientIpOf(req: IncomingMessage, trustProxy: boolean, proxyToken?: string): string {
  if (trustProxy || carriesToken(req, proxyToken)) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return (req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
}

export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

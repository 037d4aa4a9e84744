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
 * The client's address. Behind `trustedHops` proxies that each append the address they were reached from to
 * X-Forwarded-For (TRUST_PROXY=N), it is the N-th entry from the right: entries further left were written by
 * the client and are not believed. With no trusted proxy, the socket's; a request carrying `proxyToken` (the
 * verification app inside this process, a secret that never leaves it) counts as one trusted hop.
 */
export function clientIpOf(req: IncomingMessage, trustedHops: number, proxyToken?: string): string {
  const hops = carriesToken(req, proxyToken) ? Math.max(trustedHops, 1) : trustedHops;
  const socket = (req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
  if (hops <= 0) return socket;
  const forwarded = req.headers['x-forwarded-for'];
  const entries = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',');
  // a chain shorter than the trusted hops ends at its left-most entry, as Express's proxy-addr has it
  const entry = entries[Math.max(0, entries.length - hops)]?.trim();
  return entry || socket;
}

export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

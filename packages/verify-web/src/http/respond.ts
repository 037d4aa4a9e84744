import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A strong validator from the body's bytes. */
export function etagOf(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 If-None-Match: a list of tags (weak comparison) or `*`. */
function notModified(req: IncomingMessage, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || strip(tag) === strip(etag));
}

interface Reply {
  status: number;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Adds an ETag and answers 304 to a matching If-None-Match. */
  validate?: boolean;
  /** The body's ETag when it is known already (a large static body is not hashed per request). */
  etag?: string;
}

/** Writes a reply; HEAD gets the headers only. */
export function send(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string | number> = { ...reply.headers };
  const body = reply.body ?? '';
  if (reply.validate && reply.status < 300) {
    const etag = reply.etag ?? etagOf(body);
    headers.ETag = etag;
    if (notModified(req, etag)) {
      delete headers['Content-Type'];
      res.writeHead(304, headers).end();
      return;
    }
  }
  headers['Content-Length'] = Buffer.byteLength(body);
  res.writeHead(reply.status, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * The client's address: the socket's, or behind `trustedHops` proxies that each append to X-Forwarded-For, the
 * entry the outermost trusted one appended (the N-th from the right; entries left of it are the client's own words).
 * The API's clientIpOf reads it the same way (TRUST_PROXY).
 */
export function clientIp(req: IncomingMessage, trustedHops: number): string {
  const socket = (req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
  if (trustedHops <= 0) return socket;
  const forwarded = req.headers['x-forwarded-for'];
  const entries = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',');
  return entries[Math.max(0, entries.length - trustedHops)]?.trim() || socket;
}

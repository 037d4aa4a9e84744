import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DELIVERY_TIMEOUT_MS } from './post.ts';

/** What `webhooks listen` prints of one delivery it forwarded. */
export interface Forwarded {
  at: Date;
  event: string;
  deliveryId: string;
  /** The status the service was answered: the forward target's, or 502/504 when it could not be reached. */
  status: number;
  /** Why the forward failed, when it did not reach the target. */
  error?: string;
  ms: number;
}

// A delivery's body is one event; anything larger is not one of the service's.
const MAX_BODY_BYTES = 1024 * 1024;
// Under the service's own timeout, so the service hears our 504 rather than timing out itself.
const FORWARD_TIMEOUT_MS = DELIVERY_TIMEOUT_MS - 1_000;

/** The request headers a receiver needs, forwarded as sent: the body's type and every signature header. */
const FORWARDED_HEADER = /^(content-type|user-agent|x-service-.+|webhook-.+)$/;

function headersOf(req: IncomingMessage): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (FORWARDED_HEADER.test(name) && typeof value === 'string') kept[name] = value;
  return kept;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Sends one delivery on to the target, byte for byte; answers the service as the target answered it. */
async function forward(target: URL, req: IncomingMessage, res: ServerResponse): Promise<Forwarded> {
  const started = performance.now();
  const headers = headersOf(req);
  const seen = {
    at: new Date(),
    event: headers['x-service-event'] ?? '-',
    deliveryId: headers['x-service-delivery'] ?? '-',
  };
  const answer = (status: number, body: string | Buffer, type = 'text/plain', error?: string): Forwarded => {
    res.writeHead(status, { 'content-type': type }).end(body);
    return { ...seen, status, ...(error ? { error } : {}), ms: Math.round(performance.now() - started) };
  };
  const body = await bodyOf(req);
  if (body === undefined) return answer(413, 'body too large', 'text/plain', 'body too large');
  try {
    // redirects are the target's answer, as in production (where a 3xx is a failed attempt)
    const reply = await fetch(target, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    const text = Buffer.from(await reply.arrayBuffer());
    return answer(reply.status, text, reply.headers.get('content-type') ?? 'text/plain');
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    const why = timedOut ? `no answer in ${FORWARD_TIMEOUT_MS} ms` : `connection failed: ${cause}`;
    return answer(timedOut ? 504 : 502, `forward to ${target.href} failed: ${why}`, 'text/plain', why);
  }
}

interface Forwarder {
  /** The receiver's URL, on 127.0.0.1 at a port the system chose. */
  url: string;
  close(): Promise<void>;
}

/** A receiver on 127.0.0.1 that forwards every POST to `target` and reports each one. */
export async function startForwarder(target: URL, onForwarded: (forwarded: Forwarded) => void): Promise<Forwarder> {
  const server = createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    forward(target, req, res).then(onForwarded, () => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/listen`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

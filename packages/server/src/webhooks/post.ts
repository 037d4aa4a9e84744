import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { signedHeaders } from './signature.ts';
import { UnsafeUrlError, vetLoopbackUrl, vetUrl, type UrlPolicy } from './url-guard.ts';

export { signatureOf } from './signature.ts';

export const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of a receiver's answer an attempt keeps, for inspection. */
export const RESPONSE_BODY_LIMIT = 1024;

interface WebhookRequest {
  url: string;
  secret: string;
  /** The secret a rotation replaced, while its window lasts: it signs too. */
  previousSecret?: string | null;
  /** The attempt's time on the service's clock (ms): webhook-timestamp. */
  at?: number;
  deliveryId: string;
  eventType: string;
  body: string;
  /** A `webhooks listen` subscription's: its receiver must be on loopback (url-guard.ts, vetLoopbackUrl). */
  listen?: boolean;
}

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
  responseBody: string | null;
}

// keep-alive pools: one connection setup per receiver, not per delivery
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/**
 * One attempt: vet the URL again (DNS may have changed since subscribe), then POST to a vetted address only. No
 * redirects are followed (a 3xx is a failure), the whole exchange has DELIVERY_TIMEOUT_MS, and at most
 * RESPONSE_BODY_LIMIT bytes of the answer are read. Never throws: every outcome is an AttemptResult.
 */
export async function postWebhook(
  request: WebhookRequest,
  policy: UrlPolicy,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<AttemptResult> {
  const started = performance.now();
  const done = (result: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({
    ...result,
    durationMs: Math.round(performance.now() - started),
  });
  let target: Awaited<ReturnType<typeof vetUrl>>;
  try {
    target = request.listen ? vetLoopbackUrl(request.url) : await vetUrl(request.url, policy);
  } catch (error) {
    return done({
      ok: false,
      status: null,
      error: `refused: the URL ${error instanceof UnsafeUrlError ? error.message : 'is not deliverable'}`,
      responseBody: null,
    });
  }
  const pinned: LookupFunction = (_host, options, callback) => {
    const all = target.addresses.filter((a) => !options.family || a.family === options.family);
    if (options.all) (callback as unknown as (e: null, a: typeof all) => void)(null, all);
    else callback(null, all[0]?.address ?? target.addresses[0]!.address, all[0]?.family ?? target.addresses[0]!.family);
  };
  const { url } = target;
  const body = Buffer.from(request.body);
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<AttemptResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(result));
    };
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(
      url,
      {
        method: 'POST',
        agent: agents[url.protocol as 'http:' | 'https:'],
        lookup: pinned,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': body.length,
          'User-Agent': 'attestation-service-webhooks/1',
          ...signedHeaders(
            { id: request.deliveryId, type: request.eventType, body: request.body },
            { secret: request.secret, previousSecret: request.previousSecret ?? null },
            request.at ?? Date.now(),
          ),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept < RESPONSE_BODY_LIMIT) chunks.push(chunk.subarray(0, RESPONSE_BODY_LIMIT - kept));
          kept += chunk.length;
          if (kept >= RESPONSE_BODY_LIMIT) res.destroy(); // enough to inspect; do not read a huge answer
        });
        const end = () => {
          const status = res.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          finish({
            ok,
            status,
            error: ok ? null : `receiver answered ${status}`,
            responseBody: chunks.length ? Buffer.concat(chunks).toString('utf8') : null,
          });
        };
        res.on('end', end);
        res.on('close', end);
        res.on('error', end);
      },
    );
    const timer = setTimeout(() => {
      finish({ ok: false, status: null, error: `timed out after ${timeoutMs} ms`, responseBody: null });
      req.destroy();
    }, timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({
        ok: false,
        status: null,
        error: `connection failed: ${error.code ?? error.message}`,
        responseBody: null,
      }),
    );
    req.end(body);
  });
}

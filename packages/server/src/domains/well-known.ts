import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { UnsafeUrlError, vetUrl, type UrlPolicy } from '../webhooks/url-guard.ts';

const WELL_KNOWN_TIMEOUT_MS = 5_000;
/** A proof file holds a token of a few dozen bytes: more than this is not one. */
export const WELL_KNOWN_MAX_BYTES = 1024;

type FetchedText = { ok: true; text: string } | { ok: false; reason: string };

/**
 * GETs a domain's proof file through the webhooks' URL guard: https on an allowed port, every address the host
 * resolves to public (unless WEBHOOK_ALLOW_PRIVATE_URLS), the connection pinned to a vetted address so a changed
 * DNS answer cannot reach inside. No redirects (a 3xx is an answer), a whole-exchange timeout, and the body read up
 * to WELL_KNOWN_MAX_BYTES only. Never throws.
 */
export async function fetchProofFile(raw: string, policy: UrlPolicy): Promise<FetchedText> {
  let target: Awaited<ReturnType<typeof vetUrl>>;
  try {
    target = await vetUrl(raw, policy);
  } catch (error) {
    return { ok: false, reason: `${raw} ${error instanceof UnsafeUrlError ? error.message : 'is not reachable'}` };
  }
  const [first] = target.addresses;
  const pinned: LookupFunction = (_host, options, callback) => {
    const all = target.addresses.filter((a) => !options.family || a.family === options.family);
    if (options.all) (callback as unknown as (e: null, a: typeof all) => void)(null, all);
    else callback(null, all[0]?.address ?? first!.address, all[0]?.family ?? first!.family);
  };
  const transport = target.url.protocol === 'https:' ? https : http;
  return new Promise<FetchedText>((resolve) => {
    let settled = false;
    const finish = (result: FetchedText) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(result);
    };
    const req = transport.get(
      target.url,
      { lookup: pinned, agent: false, headers: { 'User-Agent': 'attestation-service-domain-proof/1' } },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          finish({
            ok: false,
            reason: `${raw} answered ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`,
          });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > WELL_KNOWN_MAX_BYTES)
            finish({
              ok: false,
              reason: `${raw} is larger than ${WELL_KNOWN_MAX_BYTES} bytes; it should hold the token only`,
            });
          else chunks.push(chunk);
        });
        res.on('end', () => finish({ ok: true, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => finish({ ok: false, reason: `${raw}: the connection failed while reading` }));
      },
    );
    const timer = setTimeout(
      () => finish({ ok: false, reason: `${raw} did not answer within ${WELL_KNOWN_TIMEOUT_MS / 1000} s` }),
      WELL_KNOWN_TIMEOUT_MS,
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({ ok: false, reason: `${raw} could not be fetched (${error.code ?? error.message})` }),
    );
  });
}

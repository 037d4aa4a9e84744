import type { IncomingMessage, ServerResponse } from 'node:http';
import { uidSchema } from '../../attestations/contracts.ts';
import type { AuditService } from '../../audit/service.ts';
import { AppError } from '../../errors.ts';
import { headerOf } from '../../http/request.ts';
import type { Mount } from '../../http/server.ts';
import type { AuthenticatedKey, KeyService, KnownKeyFailure } from '../../keys/service.ts';
import type { RateLimiter } from '../../limits/rate-limit.ts';
import { assetTooLarge, declaredLength, readAsset } from './asset-body.ts';
import { outputFor, SIDECAR_TYPE, wantsSidecar } from './media-types.ts';
import type { ContentCredentialsService } from './service.ts';

/** The route, as OpenAPI and the metrics name it. */
const CONTENT_CREDENTIALS_PATH = '/v1/attestations/{uid}/content-credentials';
const PATTERN = /^\/v1\/attestations\/(?<uid>[^/]+)\/content-credentials\/?$/;

export interface ContentCredentialsMountDeps {
  keys: KeyService;
  rateLimiter: RateLimiter;
  audit: AuditService;
  contentCredentials: ContentCredentialsService;
}

/**
 * POST /v1/attestations/{uid}/content-credentials: the asset's bytes in, the same asset with a signed C2PA manifest
 * out (or, with `Accept: application/c2pa`, the sidecar manifest store). Outside the router because its body is the
 * asset, streamed, not JSON; gated as the router's POSTs are (the key, its rate limit, audited failures). Everything
 * that needs no body is checked before a byte of it is read: the key, the uid, the media type, the declared length,
 * the attestation and its owner, a free signing place.
 */
export function contentCredentialsMount(deps: ContentCredentialsMountDeps): Mount {
  const { contentCredentials } = deps;
  return {
    prefix: CONTENT_CREDENTIALS_PATH,
    pattern: PATTERN,
    browserCalls: 'gated',
    async handle(req, res, { ip }) {
      res.setHeader('Cache-Control', 'no-store');
      const uid = PATTERN.exec(new URL(req.url ?? '/', 'http://localhost').pathname)!.groups!.uid!;
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        throw new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; use POST.`, { allowed: ['POST'] });
      }
      const auth = await authenticate(deps, req, res, ip);
      const checked = uidSchema.safeParse(uid);
      if (!checked.success)
        throw new AppError('VALIDATION_FAILED', `Invalid request: uid: ${checked.error.issues[0]!.message}`, {
          errors: [{ path: 'uid', message: checked.error.issues[0]!.message }],
        });
      const sidecar = wantsSidecar(headerOf(req, 'accept'));
      const output = outputFor(headerOf(req, 'content-type'), sidecar);
      const declared = declaredLength(req);
      if (declared !== undefined && declared > contentCredentials.maxBytes) {
        res.setHeader('Connection', 'close'); // the body is never read: the socket cannot be reused
        throw assetTooLarge(contentCredentials.maxBytes);
      }
      const facts = await contentCredentials.attestationFor(auth, checked.data);
      const release = contentCredentials.admit();
      try {
        const body = await readAsset(req, contentCredentials.maxBytes).catch((error: unknown) => {
          res.setHeader('Connection', 'close');
          throw error;
        });
        const signed = await contentCredentials.issue(facts, body, output);
        // a body this service read to its end keeps the connection (the server closes ones declared over 8 MiB)
        res.removeHeader('Connection');
        send(res, signed, sidecar ? SIDECAR_TYPE : output.format);
      } finally {
        release();
      }
    },
  };
}

/**
 * The caller's key, charged one call against its rate limit, as the router's gated procedures take it: a failure
 * counts against the client's address and, for a key that exists, is audited.
 */
async function authenticate(deps: ContentCredentialsMountDeps, req: IncomingMessage, res: ServerResponse, ip: string) {
  const requestId = String(res.getHeader('X-Request-Id') ?? '');
  const procedure = 'attestations.contentCredentials';
  let knownFailure = undefined as KnownKeyFailure | undefined; // set by the callback (a `let` would narrow to undefined)
  let auth: AuthenticatedKey;
  try {
    auth = await deps.keys.authenticate(headerOf(req, 'authorization'), (failure) => (knownFailure = failure));
  } catch (error) {
    setHeaders(res, await deps.rateLimiter.forIp(ip));
    if (knownFailure) deps.audit.recordAuthFailure(knownFailure, { ip, requestId, procedure });
    throw error;
  }
  setHeaders(res, await deps.rateLimiter.forKey(auth.prefix, auth.tier, auth));
  return auth;
}

function setHeaders(res: ServerResponse, headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}

function send(res: ServerResponse, bytes: Uint8Array, contentType: string): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', bytes.byteLength);
  if (contentType === SIDECAR_TYPE) res.setHeader('Content-Disposition', 'attachment; filename="manifest.c2pa"');
  res.end(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

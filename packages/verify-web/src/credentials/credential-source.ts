import type { JSONWebKeySet } from 'jose';
import { createTtlCache } from '../verdict/cache.ts';

/** The API did not answer with the document (down, slow, refused, or not JSON): nothing is known either way. */
export class CouldNotFetch extends Error {
  override readonly name = 'CouldNotFetch';
}

/** The service's Verifiable Credentials as the API serves them: compact JWS text, and the keys that sign them. */
export interface CredentialSource {
  /** An attestation's `vc+jwt`, or null when the API has no credential for it (404: an API from before them). */
  credential(uid: string, visitorIp: string): Promise<string | null>;
  /** A status list's `vc+jwt`, by its number; `fresh` skips the cache. */
  statusList(list: string, fresh?: boolean): Promise<string>;
  /** The API's JWKS; `fresh` skips the cache (a key rotated in since it was read). */
  jwks(fresh?: boolean): Promise<JSONWebKeySet>;
}

const TIMEOUT_MS = 5_000;
/** A credential or a list is a few kilobytes (a list of 131,072 bits compresses well); more is not one. */
const MAX_BYTES = 1 << 20;
/** The list's own `ttl` (60 s): a revocation shows here within it, and at once where it disagrees with the chain. */
const LIST_TTL_MS = 60_000;
const JWKS_TTL_MS = 5 * 60_000;

/**
 * The API's credential documents over HTTP. Status lists and the JWKS are shared by every visitor, read as this app
 * and cached; a credential is read with the visitor's address (X-Forwarded-For), as the records are.
 */
export function createCredentialSource(
  apiUrl: string,
  opts: { apiKey?: string; headers?: Record<string, string>; fetch?: typeof fetch } = {},
): CredentialSource {
  const base = apiUrl.replace(/\/+$/, '');
  const fetchImpl = opts.fetch ?? globalThis.fetch;
  const lists = createTtlCache<string>({ ttlMs: LIST_TTL_MS, maxEntries: 64 });
  const keys = createTtlCache<JSONWebKeySet>({ ttlMs: JWKS_TTL_MS, maxEntries: 1 });

  async function get(path: string, accept: string, visitorIp?: string): Promise<Response> {
    const headers = new Headers({ accept, ...opts.headers });
    if (opts.apiKey) headers.set('authorization', `Bearer ${opts.apiKey}`);
    if (visitorIp) headers.set('x-forwarded-for', visitorIp);
    try {
      return await fetchImpl(`${base}${path}`, { headers, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      throw new CouldNotFetch(`the API did not answer ${path} (${error instanceof Error ? error.message : error})`);
    }
  }

  async function body(res: Response, path: string): Promise<string> {
    if (!res.ok) throw new CouldNotFetch(`the API answered ${path} with ${res.status}`);
    const text = await res.text().catch(() => {
      throw new CouldNotFetch(`the API's answer to ${path} broke off`);
    });
    if (text.length > MAX_BYTES) throw new CouldNotFetch(`the API's answer to ${path} is larger than a credential`);
    return text;
  }

  return {
    async credential(uid, visitorIp) {
      const path = `/v1/attestations/${uid}/credential`;
      const res = await get(path, 'application/vc+jwt', visitorIp);
      return res.status === 404 ? null : (await body(res, path)).trim();
    },
    statusList(list, fresh = false) {
      const path = `/v1/status-lists/${list}`;
      if (fresh) lists.forget(list);
      return lists.get(list, async () => (await body(await get(path, 'application/vc+jwt'), path)).trim());
    },
    jwks(fresh = false) {
      const path = '/.well-known/jwks.json';
      if (fresh) keys.forget(path);
      return keys.get(path, async () => {
        const text = await body(await get(path, 'application/json'), path);
        try {
          const parsed = JSON.parse(text) as JSONWebKeySet;
          if (Array.isArray(parsed?.keys)) return parsed;
        } catch {
          // answered below
        }
        throw new CouldNotFetch(`the API's ${path} is not a JWKS`);
      });
    },
  };
}

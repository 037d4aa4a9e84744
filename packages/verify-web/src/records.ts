import { createClient, isServiceError, type Attestation, type Provenance } from '@attestation-service/client';

/** Our database's view, read through the public API with the SDK like any other client. */
export interface RecordSource {
  /** The record, or null when the API knows no such uid. Throws when the API cannot answer. */
  get(uid: string, visitorIp: string): Promise<Attestation | null>;
  /** The newest records of a content hash. */
  search(hash: string, visitorIp: string): Promise<Attestation[]>;
  /** The chain from a record back to its origin (absent: this source does not know provenance). */
  provenance?(uid: string, visitorIp: string): Promise<Provenance>;
}

/** When the API refuses the visitor's lookups for now (429 RATE_LIMITED): the seconds it says to wait. */
export function rateLimitedFor(error: unknown): number | undefined {
  if (!isServiceError(error, 'RATE_LIMITED')) return undefined;
  const seconds = Math.ceil(Number(error.details.retryAfterSeconds));
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 60;
}

/** What a person reads when the API rate-limits their lookups (the pages and the JSON badge). */
export function tooManyLookups(seconds: number): string {
  return `Too many lookups from your address right now. Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`;
}

/**
 * The SDK over `apiUrl`. The visitor's address goes along as X-Forwarded-For: an API that trusts this app as
 * its proxy (TRUST_PROXY, or the in-process token that `serve` hands both) then limits each visitor on their own
 * instead of this app as a whole; with `apiKey`, reads count against that key's tier instead. One quick retry at
 * most (half a second, whatever Retry-After says): a page is waiting, and a 429 is then passed on to the visitor.
 */
export function createRecordSource(
  apiUrl: string,
  opts: { apiKey?: string; headers?: Record<string, string>; fetch?: typeof fetch } = {},
): RecordSource {
  const fetchImpl = opts.fetch ?? globalThis.fetch;
  const client = (visitorIp: string) =>
    createClient({
      baseUrl: apiUrl,
      apiKey: opts.apiKey,
      retry: { maxRetries: 1, maxDelayMs: 500 },
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set('x-forwarded-for', visitorIp);
        for (const [name, value] of Object.entries(opts.headers ?? {})) headers.set(name, value);
        return fetchImpl(input, { ...init, headers });
      },
    });
  return {
    async get(uid, visitorIp) {
      try {
        return await client(visitorIp).attestations.get(uid);
      } catch (error) {
        if (isServiceError(error, 'NOT_FOUND')) return null;
        throw error;
      }
    },
    async search(hash, visitorIp) {
      return (await client(visitorIp).attestations.search({ hash, limit: 20 })).data;
    },
    provenance: (uid, visitorIp) => client(visitorIp).attestations.provenance(uid),
  };
}

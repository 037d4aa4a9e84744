import { createClient, isServiceError, type Attestation } from '@attestation-service/client';

/** Our database's view, read through the public API with the SDK like any other client. */
export interface RecordSource {
  /** The record, or null when the API knows no such uid. Throws when the API cannot answer. */
  get(uid: string, visitorIp: string): Promise<Attestation | null>;
  /** The newest records of a content hash. */
  search(hash: string, visitorIp: string): Promise<Attestation[]>;
}

/**
 * The SDK over `apiUrl`. The visitor's address goes along as X-Forwarded-For: an API that trusts this app as
 * its proxy (TRUST_PROXY) then limits each visitor on their own instead of this app as a whole. One quick retry
 * at most: a page is waiting.
 */
export function createRecordSource(apiUrl: string, fetchImpl: typeof fetch = globalThis.fetch): RecordSource {
  const client = (visitorIp: string) =>
    createClient({
      baseUrl: apiUrl,
      retry: { maxRetries: 1, maxDelayMs: 500 },
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set('x-forwarded-for', visitorIp);
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
  };
}

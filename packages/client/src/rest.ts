import { AttestationServiceError, type ErrorCode } from './errors.ts';

/** A REST answer that is not 2xx as the error it carries (the API's `{ code, message, details }` body: docs/api.md). */
async function failure(res: Response, what: string): Promise<AttestationServiceError> {
  const requestId = res.headers.get('x-request-id') ?? undefined;
  try {
    const body = (await res.json()) as { code: ErrorCode; message: string; details?: Record<string, unknown> };
    return new AttestationServiceError(body.code, body.message, (body.details ?? {}) as never, res.status, requestId);
  } catch {
    return new AttestationServiceError(
      'NETWORK_ERROR',
      `${what} answered ${res.status} without an error body.`,
      {},
      res.status,
      requestId,
    );
  }
}

/** What a REST call of the SDK needs: the service's base URL, the key (if any) and the fetch to use. */
export type RestDeps = { baseUrl: string; apiKey: string | undefined; fetch: typeof fetch };

/** A REST call: a network failure is NETWORK_ERROR, an answer that is not 2xx the error it carries. */
export async function restCall(deps: RestDeps, path: string, init: RequestInit, what: string): Promise<Response> {
  let res: Response;
  try {
    res = await deps.fetch(`${deps.baseUrl}${path}`, init);
  } catch (error) {
    throw new AttestationServiceError(
      'NETWORK_ERROR',
      `Could not reach the attestation service: ${error instanceof Error ? error.message : String(error)}`,
      {},
      0,
      undefined,
      { cause: error },
    );
  }
  if (!res.ok) throw await failure(res, what);
  return res;
}

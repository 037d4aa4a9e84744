import { TRPCClientError } from '@trpc/client';
import { AttestationServiceError, type ErrorCode } from './errors.ts';

/** A tRPC call's failure as the service's error: its code, message, details and request id, or NETWORK_ERROR. */
function toServiceError(error: unknown): AttestationServiceError {
  if (error instanceof AttestationServiceError) return error;
  if (error instanceof TRPCClientError) {
    const data = (error.data ?? {}) as { code?: string; details?: Record<string, unknown>; httpStatus?: number };
    const meta = error.meta as { response?: Response } | undefined;
    const requestId = meta?.response?.headers.get('x-request-id') ?? undefined;
    if (data.code)
      return new AttestationServiceError(
        data.code as ErrorCode,
        error.message,
        (data.details ?? {}) as never,
        data.httpStatus ?? 0,
        requestId,
        { cause: error },
      );
    return new AttestationServiceError(
      'NETWORK_ERROR',
      `Could not reach the attestation service: ${error.message}`,
      {},
      meta?.response?.status ?? 0,
      requestId,
      { cause: error },
    );
  }
  return new AttestationServiceError(
    'NETWORK_ERROR',
    error instanceof Error ? error.message : String(error),
    {},
    0,
    undefined,
    { cause: error },
  );
}

/** Runs a tRPC call, its failure thrown as an AttestationServiceError. */
export async function wrap<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toServiceError(error);
  }
}

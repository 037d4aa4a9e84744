import { TRPCClientError } from '@trpc/client';

/** What the service puts in a tRPC error's `data` (its error formatter): the REST error body and the status. */
interface ServiceErrorData {
  code?: string;
  message?: string;
  details?: unknown;
  httpStatus?: number;
}

function dataOf(error: unknown): ServiceErrorData | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  const data: unknown = error.data;
  return typeof data === 'object' && data !== null ? (data as ServiceErrorData) : undefined;
}

/** A failed better-auth client call, thrown so React Query treats it like any other error. */
class AuthCallError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

type AuthResult<T> = { data: T; error: null } | { data: null; error: { message?: string | undefined; status: number } };

/** The data of a better-auth client call, or an AuthCallError with a readable message. */
export function unwrapAuth<T>(result: AuthResult<T>): T {
  if (result.error) throw new AuthCallError(authErrorMessage(result.error), result.error.status);
  return result.data;
}

/** The HTTP status of a failed call, when the service answered. */
export function errorStatus(error: unknown): number | undefined {
  if (error instanceof AuthCallError) return error.status;
  return dataOf(error)?.httpStatus;
}

/** A sentence for the person: the service's own message, or what went wrong on the way. */
export function errorMessage(error: unknown): string {
  const data = dataOf(error);
  if (data?.message) return data.message;
  if (error instanceof TRPCClientError && !data) {
    return 'The service could not be reached. Check the connection and try again.';
  }
  if (error instanceof Error && error.message) return error.message;
  return 'Something went wrong. Try again.';
}

/** A better-auth client error (`{ message, status }`) as a sentence; 429 says to wait. */
export function authErrorMessage(error: { message?: string | undefined; status: number } | null): string {
  if (!error) return '';
  if (error.status === 429) {
    // the service's per-email limit names the wait ("Retry in 42 s."); better-auth's own does not
    return error.message && /\d/.test(error.message)
      ? error.message
      : 'Too many attempts: wait a minute, then try again.';
  }
  if (error.message) return error.message;
  if (error.status === 0 || !error.status) return 'The service could not be reached. Check the connection.';
  return `The request failed (${error.status}). Try again.`;
}

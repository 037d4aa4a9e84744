import { TRPCError } from '@trpc/server';
import { isDatabaseUnavailable } from '../db/sql.ts';
import { MAX_REPORTED_PROBLEMS } from './input-rules.ts';
import { AppError, ERROR_STATUS, type ErrorBody, type ErrorCode } from '../errors.ts';

interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

interface IssueLike {
  path: PropertyKey[];
  message: string;
}

function isZodError(error: unknown): error is { issues: IssueLike[] } {
  return error instanceof Error && error.name === 'ZodError' && Array.isArray((error as { issues?: unknown }).issues);
}

const FROM_TRPC_CODE: Partial<Record<TRPCError['code'], [ErrorCode, string]>> = {
  PARSE_ERROR: ['INVALID_JSON', 'The request body (or the input parameter) is not valid JSON.'],
  BAD_REQUEST: ['VALIDATION_FAILED', 'Invalid request: the input could not be read.'],
  NOT_FOUND: ['NOT_FOUND', 'No such resource.'],
  METHOD_NOT_SUPPORTED: ['METHOD_NOT_ALLOWED', 'This method is not allowed on this path.'],
  PAYLOAD_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 'The request body is larger than 1 MiB.'],
  UNSUPPORTED_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json.'],
};

/** What a 503 for an unanswering database asks the client to wait, in seconds. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

function build(code: ErrorCode, message: string, details: ErrorBody['details'] = {}, headers = {}): ErrorResponse {
  return { status: ERROR_STATUS[code], body: { code, message, details }, headers };
}

/**
 * Turns anything thrown while serving a request into the API's `{ code, message, details }` body (docs/api.md).
 * Anything that is not one of our errors becomes a bare 500: no stack, SQL or secret ever leaves the process.
 */
export function toErrorResponse(error: unknown): ErrorResponse {
  const appError =
    error instanceof AppError
      ? error
      : error instanceof TRPCError && error.cause instanceof AppError
        ? error.cause
        : undefined;
  if (appError) return build(appError.errorCode, appError.message, appError.details, appError.headers);

  const cause = error instanceof TRPCError ? error.cause : error;
  if (isZodError(cause)) {
    const errors = cause.issues
      .slice(0, MAX_REPORTED_PROBLEMS)
      .map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
    const first = errors[0];
    const message = first
      ? `Invalid request: ${first.path ? `${first.path}: ` : ''}${first.message}`
      : 'Invalid request.';
    return build('VALIDATION_FAILED', message, { errors });
  }
  if (error instanceof TRPCError) {
    const known = FROM_TRPC_CODE[error.code];
    if (known) return build(known[0], known[1]);
  }
  // the one place a database that does not answer (timeouts, refused or dropped connections) becomes a 503
  if (isDatabaseUnavailable(cause)) {
    return build(
      'SERVICE_UNAVAILABLE',
      'The database did not answer in time. Retry later.',
      {},
      { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
    );
  }
  return build(
    'INTERNAL_ERROR',
    'Something went wrong on our side. Retry later; if it persists, contact support with the X-Request-Id.',
  );
}

import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';

/** Every error code the API answers with, and its HTTP status: the one place they are mapped. */
export const ERROR_STATUS = {
  INVALID_JSON: 400,
  VALIDATION_FAILED: 400,
  MALFORMED_REQUEST: 400,
  INVALID_SIGNATURE: 400,
  DELEGATION_EXPIRED: 400,
  CHALLENGE_INVALID: 400,
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  API_KEY_REVOKED: 401,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  ATTESTER_NOT_REGISTERED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  REQUEST_TIMEOUT: 408,
  ALREADY_REVOKED: 409,
  ALREADY_EXISTS: 409,
  ALREADY_ONCHAIN: 409,
  IDEMPOTENCY_CONFLICT: 409,
  ATTESTER_TAKEN: 409,
  INVALID_NONCE: 409,
  ORIGIN_NOT_ONCHAIN: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  CONTENT_MISMATCH: 422,
  RATE_LIMITED: 429,
  QUOTA_EXCEEDED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  CHAIN_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
  NOT_READY: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorDetails = Record<string, unknown>;

/** One problem with a request's input: where (a dotted path; '' for the whole input) and what is wrong. */
export type FieldProblem = { path: string; message: string };

/**
 * The `details` of the codes whose details have a fixed shape, as the server builds them (AppError's constructor
 * holds every construction to it); the SDK's ErrorDetailsByCode is proven equal to it (client/test/router-types.ts).
 */
export type ErrorDetailsByCode = {
  VALIDATION_FAILED: { errors: FieldProblem[] };
  /** `scope`: the bucket that was full — the key's, its account's ceiling, or the client IP's. */
  RATE_LIMITED: { limit: number; windowSeconds: number; retryAfterSeconds: number; scope: 'key' | 'account' | 'ip' };
  /** `scope`: the limit that bound — the key's tier, or its account's plan across all its keys. */
  QUOTA_EXCEEDED: {
    tier: string;
    kind: 'onchain';
    used: number;
    limit: number;
    resetsAt: number;
    scope: 'key' | 'account';
  };
  NOT_READY: { components: Record<string, string>; failing: string[] };
  ALREADY_EXISTS: { id: string };
  /** A delegated on-chain request signed for another nonce than the attester's next one (a replay, or a gap). */
  INVALID_NONCE: { attester: string; expected: string; given: string };
  /** Bytes sent for an attestation whose SHA-256 is not its content hash (0x-prefixed hex, both). */
  CONTENT_MISMATCH: { expected: string; received: string };
};

/** The details a code carries: its shape in ErrorDetailsByCode, else any object. */
type DetailsOf<C extends ErrorCode> = C extends keyof ErrorDetailsByCode ? ErrorDetailsByCode[C] : ErrorDetails;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

const TRPC_CODE_BY_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  406: 'BAD_REQUEST',
  408: 'TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  431: 'BAD_REQUEST',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * The service's one error family. It is a TRPCError so that both surfaces (REST and /trpc) answer with the
 * right HTTP status; `errorCode` and `details` are what clients see (`details` typed by code: ErrorDetailsByCode).
 */
export class AppError<C extends ErrorCode = ErrorCode> extends TRPCError {
  readonly errorCode: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails;
  /** Extra response headers (Retry-After and the like). */
  readonly headers: Record<string, string>;

  constructor(
    errorCode: C,
    message: string,
    details: DetailsOf<C> = {} as DetailsOf<C>,
    headers: Record<string, string> = {},
  ) {
    const status = ERROR_STATUS[errorCode];
    super({ code: TRPC_CODE_BY_STATUS[status] ?? 'INTERNAL_SERVER_ERROR', message });
    this.errorCode = errorCode;
    this.status = status;
    this.details = details;
    this.headers = headers;
  }
}

/** The body of every error answer (docs/api.md, "Errors"). */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details: ErrorDetails;
}

/** What a log line may say of an unexpected error: its kind and code, never its message (SQL, values) or stack. */
export function describeError(error: unknown): { type: string; code?: string } {
  if (!(error instanceof Error)) return { type: typeof error };
  const code = (error as { code?: unknown }).code;
  return { type: error.name, ...(typeof code === 'string' ? { code } : {}) };
}

export function notFound(what: string): AppError {
  return new AppError('NOT_FOUND', `${what} was not found.`);
}

/** A 400 VALIDATION_FAILED about one field: `<path> <message>.`, the field in `details.errors` as zod's are. */
export function invalidField(path: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${path} ${message}.`, { errors: [{ path, message }] });
}

/** A command line the CLI cannot take: printed with the usage, exit 2 (cli.ts). */
export class UsageError extends Error {}

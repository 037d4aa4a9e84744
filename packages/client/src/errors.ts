/** Every error code the service answers with. */
export type ErrorCode =
  | 'INVALID_JSON'
  | 'VALIDATION_FAILED'
  | 'MALFORMED_REQUEST'
  | 'INVALID_SIGNATURE'
  | 'DELEGATION_EXPIRED'
  | 'CHALLENGE_INVALID'
  | 'MISSING_API_KEY'
  | 'INVALID_API_KEY'
  | 'API_KEY_REVOKED'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'ATTESTER_NOT_REGISTERED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'NOT_ACCEPTABLE'
  | 'REQUEST_TIMEOUT'
  | 'ALREADY_REVOKED'
  | 'ALREADY_EXISTS'
  | 'ALREADY_ONCHAIN'
  | 'IDEMPOTENCY_CONFLICT'
  | 'ATTESTER_TAKEN'
  | 'INVALID_NONCE'
  | 'ORIGIN_NOT_ONCHAIN'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'CONTENT_MISMATCH'
  | 'RATE_LIMITED'
  | 'QUOTA_EXCEEDED'
  | 'HEADERS_TOO_LARGE'
  | 'INTERNAL_ERROR'
  | 'CHAIN_UNAVAILABLE'
  | 'SERVICE_UNAVAILABLE'
  | 'NOT_READY'
  /** The SDK could not reach the service, or got an answer it could not read. */
  | 'NETWORK_ERROR';

/** What `details` holds for the codes that carry structured details. */
export interface ErrorDetailsByCode {
  VALIDATION_FAILED: { errors: { path: string; message: string }[] };
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
  /** A signed on-chain request for another nonce than the attester's next one (a replay, or a gap). */
  INVALID_NONCE: { attester: string; expected: string; given: string };
  /** Bytes sent for an attestation whose SHA-256 is not its content hash (0x-prefixed hex, both). */
  CONTENT_MISMATCH: { expected: string; received: string };
}

export type ErrorDetails<C extends ErrorCode> = C extends keyof ErrorDetailsByCode
  ? ErrorDetailsByCode[C]
  : Record<string, unknown>;

/** An error answered by the service (or a transport failure), with the server's code, message and details. */
export class AttestationServiceError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = 'AttestationServiceError';
  readonly code: C;
  readonly details: ErrorDetails<C>;
  /** The HTTP status (0 when no answer came). */
  readonly status: number;
  /** The service's X-Request-Id, for support. */
  readonly requestId: string | undefined;

  constructor(
    code: C,
    message: string,
    details: ErrorDetails<C>,
    status: number,
    requestId?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = code;
    this.details = details;
    this.status = status;
    this.requestId = requestId;
  }

  /** Narrows to one code, typing `details`: `if (error.is('QUOTA_EXCEEDED')) error.details.resetsAt`. */
  is<K extends ErrorCode>(code: K): this is AttestationServiceError<K> {
    return (this.code as ErrorCode) === code;
  }
}

/** True when `error` is an AttestationServiceError (of `code`, when given). */
export function isServiceError<K extends ErrorCode = ErrorCode>(
  error: unknown,
  code?: K,
): error is AttestationServiceError<K> {
  return error instanceof AttestationServiceError && (code === undefined || error.code === code);
}

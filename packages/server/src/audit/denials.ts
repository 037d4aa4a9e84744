import type { AuditAction } from '@attestation-service/protocol';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { AppError, describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { auditEntry, type RequestOrigin } from './entry.ts';
import { appendAudit } from './append.ts';

interface Deps {
  db: Db;
  clock: Clock;
  log: Logger;
}

/** Where a refused call came from. */
export interface CallerInfo extends RequestOrigin {
  /** The procedure called, e.g. `attestations.create`. */
  procedure: string;
}

/** The key a refusal is recorded for (declared here, so audit/ needs nothing of keys/). */
interface ActingKey {
  accountId: string;
  prefix: string;
}

/**
 * A refused call's entry (outcome `denied`) in a transaction of its own, since the refused call changed nothing
 * whose transaction it could share. Never throws: the caller still gets its answer, and a missing entry is logged.
 */
async function appendDenial(
  deps: Deps,
  key: ActingKey,
  action: AuditAction,
  caller: CallerInfo,
  details: Record<string, unknown>,
): Promise<void> {
  const fields = auditEntry({
    accountId: key.accountId,
    actorKeyPrefix: key.prefix,
    at: new Date(deps.clock.now()),
    action,
    resource: `api_key:${key.prefix}`,
    details,
    outcome: 'denied',
    origin: caller,
  });
  try {
    await inTransaction(deps.db, (tx) => appendAudit(tx, fields));
  } catch (error) {
    deps.log.error({ requestId: caller.requestId, error: describeError(error) }, `audit entry ${action} not written`);
  }
}

/**
 * Records `auth.failed` for a key that exists (wrong secret, wrong tier part, revoked), never the secret. Not
 * awaited by the request: its answer must not take longer for a known prefix than for an unknown one.
 */
export function recordAuthFailure(deps: Deps, failure: ActingKey & { reason: string }, caller: CallerInfo): void {
  const details = { reason: failure.reason, procedure: caller.procedure };
  appendDenial(deps, failure, 'auth.failed', caller, details).catch((error: unknown) =>
    deps.log.error({ requestId: caller.requestId, error: describeError(error) }, 'audit entry auth.failed not written'),
  );
}

function quotaRefusal(error: unknown): AppError | undefined {
  const appError =
    error instanceof AppError
      ? error
      : error instanceof Error && error.cause instanceof AppError
        ? error.cause
        : undefined;
  return appError?.errorCode === 'QUOTA_EXCEEDED' ? appError : undefined;
}

/** Records `quota.refused` when `error` is a 429 QUOTA_EXCEEDED (after its transaction rolled back); else nothing. */
export async function recordQuotaRefusal(
  deps: Deps,
  auth: ActingKey,
  error: unknown,
  caller: CallerInfo,
): Promise<void> {
  const refusal = quotaRefusal(error);
  if (!refusal) return;
  const { tier, kind, used, limit } = refusal.details as { tier: string; kind: string; used: number; limit: number };
  await appendDenial(deps, auth, 'quota.refused', caller, { procedure: caller.procedure, tier, kind, used, limit });
}

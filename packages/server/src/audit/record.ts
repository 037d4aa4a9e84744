import type { Clock } from '../clock.ts';
import type { Db } from '../db/prisma.ts';
import { prismaSql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { describeError } from '../http/error-response.ts';
import type { AuthenticatedKey, KnownKeyFailure } from '../keys/service.ts';
import type { Logger } from '../log.ts';
import type { AuditFields } from './chain.ts';
import { appendAudit } from './log.ts';

interface Deps {
  db: Db;
  clock: Clock;
  log: Logger;
}

/** Where a refused call came from. */
export interface CallerInfo {
  ip: string;
  requestId: string;
  /** The procedure called, e.g. `attestations.create`. */
  procedure: string;
}

/** One entry in a transaction of its own: a refused call changed nothing whose transaction it could share. */
function appendAlone(db: Db, fields: AuditFields): Promise<void> {
  return db.$transaction((tx) => appendAudit(prismaSql(tx), fields));
}

/**
 * Records `auth.failed` for a key that exists (wrong secret, wrong tier part, revoked), never the secret. Not
 * awaited by the request: its answer must not take longer for a known prefix than for an unknown one.
 */
export function recordAuthFailure(deps: Deps, failure: KnownKeyFailure, caller: CallerInfo): void {
  appendAlone(deps.db, {
    accountId: failure.accountId,
    at: new Date(deps.clock.now()),
    action: 'auth.failed',
    actorKeyPrefix: failure.prefix,
    resource: `api_key:${failure.prefix}`,
    outcome: 'denied',
    ip: caller.ip,
    requestId: caller.requestId,
    details: { reason: failure.reason, procedure: caller.procedure },
  }).catch((error: unknown) => deps.log.error({ requestId: caller.requestId, error: describeError(error) }, 'audit entry auth.failed not written'));
}

function quotaRefusal(error: unknown): AppError | undefined {
  const appError = error instanceof AppError ? error : error instanceof Error && error.cause instanceof AppError ? error.cause : undefined;
  return appError?.errorCode === 'QUOTA_EXCEEDED' ? appError : undefined;
}

/** Records `quota.refused` when `error` is a 429 QUOTA_EXCEEDED (after its transaction rolled back); else nothing. */
export async function recordQuotaRefusal(deps: Deps, auth: AuthenticatedKey, error: unknown, caller: CallerInfo): Promise<void> {
  const refusal = quotaRefusal(error);
  if (!refusal) return;
  const { tier, kind, used, limit } = refusal.details as { tier: string; kind: string; used: number; limit: number };
  try {
    await appendAlone(deps.db, {
      accountId: auth.accountId,
      at: new Date(deps.clock.now()),
      action: 'quota.refused',
      actorKeyPrefix: auth.prefix,
      resource: `api_key:${auth.prefix}`,
      outcome: 'denied',
      ip: caller.ip,
      requestId: caller.requestId,
      details: { procedure: caller.procedure, tier, kind, used, limit },
    });
  } catch (auditError) {
    // the caller still gets its 429; the missing entry is logged loudly
    deps.log.error({ requestId: caller.requestId, error: describeError(auditError) }, 'audit entry quota.refused not written');
  }
}

import type { AuditFields } from './chain.ts';

/** Where a call came from, as an audit entry records it. */
export interface RequestOrigin {
  requestId: string;
  ip: string;
}

/** What a feature says of one audited event; the builder fills in the rest. */
export interface AuditEvent {
  accountId: string;
  /** The API key that acted, by prefix; null (the default) when the service itself acted (CLI, worker, relayer). */
  actorKeyPrefix?: string | null;
  at: Date;
  action: string;
  resource: string;
  details: Record<string, unknown>;
  /** `success` unless said otherwise. */
  outcome?: AuditFields['outcome'];
  /** The request that caused it; none (null ip and request id) for work done off a request. */
  origin?: RequestOrigin | null;
}

/** The one place audit entries are built, so every feature writes them in the same shape. */
export function auditEntry(event: AuditEvent): AuditFields {
  return {
    accountId: event.accountId,
    at: event.at,
    action: event.action,
    actorKeyPrefix: event.actorKeyPrefix ?? null,
    resource: event.resource,
    outcome: event.outcome ?? 'success',
    ip: event.origin?.ip ?? null,
    requestId: event.origin?.requestId ?? null,
    details: event.details,
  };
}

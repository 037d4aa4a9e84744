import type { AuditAction } from '@attestation-service/protocol';
import type { Role } from '../rules.ts';
import type { AuditFields } from './chain.ts';

/** Where a call came from, as an audit entry records it. */
export interface RequestOrigin {
  requestId: string;
  ip: string;
}

/** A dashboard member as the audit log names them: by email as it was at the time, with their role then. */
export interface MemberActor {
  userId: string;
  email: string;
  role: string;
  /** `support`: the operator's support team acting in someone's account. */
  as?: 'member' | 'support';
}

/** A signed-in person acting in one account of theirs, with their role there: every dashboard procedure's caller. */
export interface Member extends MemberActor {
  name: string;
  role: Role;
  accountId: string;
  accountName: string;
  plan: string;
}

/** The member acting in their account, as the audit log names them. */
export function memberActor(member: Member): MemberActor {
  return { userId: member.userId, email: member.email, role: member.role };
}

/** The request a change came in, as its audit entry records it. */
export function requestOrigin(ctx: { requestId: string; ip: string }): RequestOrigin {
  return { requestId: ctx.requestId, ip: ctx.ip };
}

/** What a feature says of one audited event; the builder fills in the rest. */
interface AuditEvent {
  accountId: string;
  /** The API key that acted, by prefix; null (the default) when the service itself acted (CLI, worker, relayer). */
  actorKeyPrefix?: string | null;
  /**
   * The dashboard member who acted (a person, not a key): recorded as `details.actor`, inside the hash-chained
   * entry, so the export's shape is unchanged (docs/decisions.md, "Dashboard audit actor").
   */
  actorMember?: MemberActor | null;
  at: Date;
  /** One of the protocol's AUDIT_ACTIONS (the dashboard offers them as the log's filter). */
  action: AuditAction;
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
    details: event.actorMember
      ? {
          ...event.details,
          actor: {
            type: event.actorMember.as ?? 'member',
            email: event.actorMember.email,
            userId: event.actorMember.userId,
            role: event.actorMember.role,
          },
        }
      : event.details,
  };
}

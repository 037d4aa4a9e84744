import type { MemberActor, RequestOrigin } from '../audit/entry.ts';
import type { Member } from './sessions.ts';

/** The member acting in their account, as the audit log names them. */
export function memberActor(member: Member): MemberActor {
  return { userId: member.userId, email: member.email, role: member.role };
}

/** The request a change came in, as its audit entry records it. */
export function requestOrigin(ctx: { requestId: string; ip: string }): RequestOrigin {
  return { requestId: ctx.requestId, ip: ctx.ip };
}

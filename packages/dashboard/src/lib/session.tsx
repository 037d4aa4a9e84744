import { createContext, useContext } from 'react';
import { hasRole, type Role } from '@attestation-service/server/rules';
import type { Outputs } from './trpc.ts';

export type Me = Outputs['session']['me'];
export type Membership = Me['memberships'][number];

/** The signed-in person and the account they are acting in (null for a member of no account yet). */
export interface SessionValue {
  me: Me;
  membership: Membership | null;
  switchAccount(accountId: string): void;
}

export const SessionContext = createContext<SessionValue | null>(null);

/** The session of a page inside the signed-in shell. */
export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside the signed-in shell');
  return value;
}

/** Whether the member's role in the current account reaches `needed` (controls only: the server enforces). */
export function useCan(needed: Role): boolean {
  const { membership } = useSession();
  return membership !== null && hasRole(membership.role, needed);
}

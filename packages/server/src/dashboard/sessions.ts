import type { Member } from '../audit/entry.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import { SESSION_ABSOLUTE_MS, type DashboardAuth } from './auth.ts';
import { assertSameOrigin } from './cross-site.ts';
import { membershipsOf } from '../accounts/member-store.ts';
import { isRole, requireRole, type Role } from '../accounts/roles.ts';
import { deleteSession, deleteSessionOf, liveSessionsOf } from './session-store.ts';

/** The person behind a dashboard call, once their session checked out. */
export interface SignedIn {
  /** `emailVerified`: better-auth's flag, read with the session (accounts/standing.ts needs no query of its own). */
  user: { id: string; name: string; email: string; emailVerified: boolean; support: boolean };
  sessionId: string;
}

interface Membership {
  accountId: string;
  accountName: string;
  role: Role;
  plan: string;
}

function unauthenticated(): AppError {
  return new AppError('UNAUTHENTICATED', 'Sign in to the dashboard first: no valid session came with this request.');
}

export type SessionService = ReturnType<typeof createSessionService>;

/**
 * Dashboard sessions: a call's cookie resolved by better-auth against the sessions table on every call (no cookie
 * cache, so a revoked session is signed out at its next request), its absolute age capped, and the member's role in
 * the account the call names.
 */
export function createSessionService(deps: { db: Db; auth: DashboardAuth; clock: Clock; origins: string[] }) {
  const { db, auth, clock } = deps;

  async function memberships(userId: string): Promise<Membership[]> {
    const rows = await membershipsOf(db, userId);
    return rows.flatMap((row) =>
      isRole(row.role)
        ? [{ accountId: row.accountId, accountName: row.accountName, role: row.role, plan: row.plan }]
        : [],
    );
  }

  return {
    memberships,

    /** FORBIDDEN for a change a browser sent from another site (docs/decisions.md, "Dashboard sign-in"). */
    assertSameOrigin: (request: { origin?: string | undefined; fetchSite?: string | undefined }) =>
      assertSameOrigin(request, deps.origins),

    /** The signed-in person of this cookie; UNAUTHENTICATED when there is none, it expired or it was revoked. */
    async resolve(cookie: string | undefined): Promise<SignedIn> {
      if (!cookie) throw unauthenticated();
      const found = await auth.api.getSession({
        headers: new Headers({ cookie }),
        query: { disableCookieCache: true },
      });
      if (!found) throw unauthenticated();
      if (found.session.createdAt.getTime() + SESSION_ABSOLUTE_MS <= clock.now()) {
        await deleteSession(db, found.session.id);
        throw unauthenticated();
      }
      const { id, name, email, emailVerified, support } = found.user;
      return {
        user: { id, name, email, emailVerified: emailVerified === true, support: support === true },
        sessionId: found.session.id,
      };
    },

    /**
     * The person's sessions by id (the page never sees a token: it is what the cookie carries), with the one this
     * call came with marked.
     */
    async list(signedIn: SignedIn) {
      const now = clock.now();
      const rows = await liveSessionsOf(db, signedIn.user.id, new Date(now), new Date(now - SESSION_ABSOLUTE_MS));
      return rows.map((row) => ({
        id: row.id,
        current: row.id === signedIn.sessionId,
        ipAddress: row.ipAddress,
        userAgent: row.userAgent,
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
        expiresAt: row.expiresAt.toISOString(),
      }));
    },

    /** Signs one of the person's sessions out at its next request; NOT_FOUND for an id that is not theirs. */
    async revoke(signedIn: SignedIn, sessionId: string): Promise<void> {
      if (!(await deleteSessionOf(db, signedIn.user.id, sessionId))) throw notFound('That session');
    },

    /**
     * The member acting in `accountId` (the `x-account-id` header), or in their first account when the call names
     * none, with at least `role` there (FORBIDDEN below it). An account they do not belong to is NOT_FOUND, as if it
     * did not exist.
     */
    async member(signedIn: SignedIn, accountId: string | undefined, role: Role): Promise<Member> {
      const all = await memberships(signedIn.user.id);
      const chosen = accountId === undefined ? all[0] : all.find((m) => m.accountId === accountId);
      if (!chosen)
        throw new AppError(
          'NOT_FOUND',
          accountId === undefined ? 'You are not a member of any account yet.' : 'No such account among yours.',
        );
      requireRole(chosen.role, role);
      const { user } = signedIn;
      return { userId: user.id, email: user.email, name: user.name, ...chosen };
    },
  };
}

import { matchQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Outlet, useMatches } from '@tanstack/react-router';
import { useCallback, useEffect, type ReactNode } from 'react';
import { Messages } from './components/messages.tsx';
import { PlainShell, Shell } from './components/shell.tsx';
import { errorStatus } from './lib/errors.ts';
import { SessionContext, type SessionValue } from './lib/session.tsx';
import { selectAccount, useSelectedAccount, useTRPC } from './lib/trpc.ts';
import { VerifyBanner } from './pages/verify-banner.tsx';

const loading = (
  <p className="muted" role="status">
    Loading…
  </p>
);

/** Pages that need a session: who is signed in, which account they act in, and the shell around the page. */
export function SignedIn() {
  const trpc = useTRPC();
  const client = useQueryClient();
  const me = useQuery(trpc.dashboard.session.me.queryOptions());
  const data = me.data;
  const accountless = useMatches({ select: (matches) => matches.some((m) => m.staticData.accountless) });

  // the account picked (remembered from the last visit); it may be gone since: then the first one
  const selected = useSelectedAccount();
  const membership = data
    ? (data.memberships.find((m) => m.accountId === selected) ?? data.memberships[0] ?? null)
    : null;
  const chosen = membership?.accountId ?? null;
  // calls carry the selected account: the pages wait until it is the one shown
  const synced = !data || chosen === selected;
  useEffect(() => {
    if (!synced) selectAccount(chosen);
  }, [synced, chosen]);

  const switchAccount = useCallback(
    (id: string) => {
      selectAccount(id);
      // every cached answer belonged to the previous account; only who is signed in stays
      const me = trpc.dashboard.session.me.queryFilter();
      client.removeQueries({ predicate: (query) => !matchQuery(me, query) });
    },
    [client, trpc],
  );

  if (me.isPending || !synced) return <PlainShell>{loading}</PlainShell>;
  if (me.error || !data) {
    const signedOut = errorStatus(me.error) === 401;
    return (
      <PlainShell>
        <h1>{signedOut ? 'Signed out' : 'The dashboard could not load'}</h1>
        {signedOut ? (
          <p>
            <Link to="/sign-in">Sign in</Link> to continue.
          </p>
        ) : (
          <Messages error={me.error} />
        )}
      </PlainShell>
    );
  }
  const value: SessionValue = { me: data, membership, switchAccount };
  return (
    <SessionContext.Provider value={value}>
      <Shell>
        <VerifyBanner />
        {membership || accountless ? (
          <AccountScope key={membership?.accountId ?? 'none'}>
            <Outlet />
          </AccountScope>
        ) : (
          <NoAccount signup={data.signup} support={data.support} />
        )}
      </Shell>
    </SessionContext.Provider>
  );
}

/** Remounts the page when the account changes, so no state of one account shows in another. */
function AccountScope({ children }: { children: ReactNode }) {
  return <>{children}</>;
}

/** A signed-in person who belongs to no account yet. */
function NoAccount({ signup, support }: { signup: 'open' | 'closed'; support: boolean }) {
  return (
    <>
      <h1>No account yet</h1>
      <p>You are signed in but not a member of any account.</p>
      {support ? (
        <p>
          As a member of the support team, open <Link to="/support">Support</Link> to find an account.
        </p>
      ) : null}
      {signup === 'open' ? (
        <p>
          <Link to="/sign-up">Create an account</Link> on the free plan, or open an invitation link you were sent.
        </p>
      ) : (
        <p>Ask an account owner for an invitation link, then open it while signed in.</p>
      )}
    </>
  );
}

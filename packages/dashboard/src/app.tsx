import { QueryClientProvider, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useMemo, useState, type ComponentType } from 'react';
import { Messages } from './components/messages.tsx';
import { PlainShell, Shell } from './components/shell.tsx';
import { errorStatus } from './lib/errors.ts';
import { Link, matchRoute, useLocation } from './lib/router.tsx';
import { SessionContext, type SessionValue } from './lib/session.tsx';
import { accountId, queryClient, selectAccount, trpcClient, TRPCProvider, useTRPC } from './lib/trpc.ts';
import { Overview } from './pages/overview.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { VerifyBanner } from './pages/verify-banner.tsx';

/** A page gets its route's parameters (`webhooks/:id` → `{ id }`). */
export type PageProps = { params: Record<string, string> };

interface Route {
  pattern: string;
  page: ComponentType<PageProps>;
  /** Shown without a session, in the plain frame. */
  public?: boolean;
}

// sign-in and the overview are in the first load; every other page is fetched when first opened
const page = (load: () => Promise<{ default: ComponentType<PageProps> }>) => lazy(load);

const ROUTES: Route[] = [
  { pattern: 'sign-in', page: SignIn, public: true },
  { pattern: 'sign-up', page: page(() => import('./pages/sign-up.tsx')), public: true },
  { pattern: 'invite/:token', page: page(() => import('./pages/invite.tsx')), public: true },
  { pattern: 'reset-password', page: page(() => import('./pages/reset-password.tsx')), public: true },
  { pattern: 'verify-email', page: page(() => import('./pages/verify-email.tsx')), public: true },
  { pattern: '', page: Overview },
  { pattern: 'keys', page: page(() => import('./pages/keys.tsx')) },
  { pattern: 'webhooks', page: page(() => import('./pages/webhooks.tsx')) },
  { pattern: 'webhooks/:id', page: page(() => import('./pages/deliveries.tsx')) },
  { pattern: 'attestations', page: page(() => import('./pages/attestations.tsx')) },
  { pattern: 'audit', page: page(() => import('./pages/audit.tsx')) },
  { pattern: 'members', page: page(() => import('./pages/members.tsx')) },
  { pattern: 'account', page: page(() => import('./pages/account.tsx')) },
  { pattern: 'support', page: page(() => import('./pages/support.tsx')) },
];

function resolve(path: string): { route: Route; params: Record<string, string> } | null {
  for (const route of ROUTES) {
    const params = matchRoute(route.pattern, path);
    if (params) return { route, params };
  }
  return null;
}

const loading = (
  <p className="muted" role="status">
    Loading…
  </p>
);

/** The whole app: providers, then the page of the current address. */
export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <Router />
      </TRPCProvider>
    </QueryClientProvider>
  );
}

function Router() {
  const { path } = useLocation();
  const found = resolve(path);
  if (!found) {
    return (
      <PlainShell>
        <h1>Page not found</h1>
        <p>
          Nothing lives at this address. <Link to="">Go to the overview</Link>.
        </p>
      </PlainShell>
    );
  }
  const Page = found.route.page;
  const content = (
    <Suspense fallback={loading}>
      <Page params={found.params} />
    </Suspense>
  );
  if (found.route.public) return <PlainShell>{content}</PlainShell>;
  return <SignedIn>{content}</SignedIn>;
}

/** Pages that need a session: who is signed in, which account they act in, and the shell around the page. */
function SignedIn({ children }: { children: React.ReactNode }) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const me = useQuery(trpc.dashboard.session.me.queryOptions());
  const data = me.data;
  const section = useLocation().path.split('/')[0];

  // the account picked (remembered from the last visit); it may be gone since: then the first one
  const [selected, setSelected] = useState(accountId);
  const membership = useMemo(() => {
    if (!data) return null;
    const chosen = data.memberships.find((m) => m.accountId === selected) ?? data.memberships[0] ?? null;
    if (chosen?.accountId !== accountId()) selectAccount(chosen?.accountId ?? null);
    return chosen;
  }, [data, selected]);

  const switchAccount = useCallback(
    (id: string) => {
      selectAccount(id);
      // every cached answer belonged to the previous account; only who is signed in stays
      client.removeQueries({ predicate: (q) => q.queryKey[0]?.toString() !== 'dashboard,session,me' });
      setSelected(id);
    },
    [client],
  );

  if (me.isPending) return <PlainShell>{loading}</PlainShell>;
  if (me.error || !data) {
    const signedOut = errorStatus(me.error) === 401;
    return (
      <PlainShell>
        <h1>{signedOut ? 'Signed out' : 'The dashboard could not load'}</h1>
        {signedOut ? (
          <p>
            <Link to="sign-in">Sign in</Link> to continue.
          </p>
        ) : (
          <Messages error={me.error} />
        )}
      </PlainShell>
    );
  }
  const value: SessionValue = { me: data, membership, switchAccount };
  const accountless = section === 'account' || section === 'support';
  return (
    <SessionContext.Provider value={value}>
      <Shell>
        <VerifyBanner />
        {membership || accountless ? (
          <AccountScope key={membership?.accountId ?? 'none'}>{children}</AccountScope>
        ) : (
          <NoAccount signup={data.signup} support={data.support} />
        )}
      </Shell>
    </SessionContext.Provider>
  );
}

/** Remounts the page when the account changes, so no state of one account shows in another. */
function AccountScope({ children }: { children: React.ReactNode }) {
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
          As a member of the support team, open <Link to="support">Support</Link> to find an account.
        </p>
      ) : null}
      {signup === 'open' ? (
        <p>
          <Link to="sign-up">Create an account</Link> on the free plan, or open an invitation link you were sent.
        </p>
      ) : (
        <p>Ask an account owner for an invitation link, then open it while signed in.</p>
      )}
    </>
  );
}

import { hasRole } from '@attestation-service/server/rules';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useRouterState, type LinkProps } from '@tanstack/react-router';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { authClient } from '../lib/auth.ts';
import { useSession } from '../lib/session.tsx';
import { NavigationStatus } from './navigation-status.tsx';
import { ThemeSelect } from './theme-select.tsx';
import { unawaited } from '../lib/unawaited.ts';

interface NavItem {
  to: LinkProps['to'];
  label: string;
  show: boolean;
}

/** The signed-in frame: skip link, header (account switcher, theme, sign out), navigation and the page. */
export function Shell({ children }: { children: ReactNode }) {
  const { me, membership } = useSession();
  const path = useRouterState({ select: (state) => state.location.pathname });
  const navigate = useNavigate();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  const queryClient = useQueryClient();
  const [signingOut, setSigningOut] = useState(false);

  // after an in-app navigation, start reading and tabbing at the new page, as a full load would
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
  }, [path]);

  const role = membership?.role;
  const items: NavItem[] = [
    { to: '/', label: 'Overview', show: role !== undefined },
    { to: '/keys', label: 'API keys', show: role !== undefined },
    { to: '/webhooks', label: 'Webhooks', show: role !== undefined },
    { to: '/attestations', label: 'Attestations', show: role !== undefined },
    { to: '/attesters', label: 'Attester addresses', show: role !== undefined },
    { to: '/domains', label: 'Domains', show: role !== undefined },
    { to: '/audit', label: 'Audit log', show: role !== undefined },
    { to: '/members', label: 'Members', show: role !== undefined && hasRole(role, 'owner') },
    { to: '/account', label: 'My account', show: true },
    { to: '/support', label: 'Support', show: me.support },
  ];

  async function signOut() {
    setSigningOut(true);
    await authClient.signOut();
    queryClient.clear();
    await navigate({ to: '/sign-in', replace: true });
  }

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        {/* the brand and the account stack on a phone, so the header stays one row */}
        <div className="who">
          <Link to="/" className="brand" activeProps={{}}>
            Attestation Service
          </Link>
          <AccountPicker />
        </div>
        <span className="spacer" />
        <ThemeSelect />
        <button type="button" className="secondary" onClick={unawaited(signOut)} disabled={signingOut}>
          Sign out
        </button>
      </header>
      <nav className="nav" aria-label="Dashboard">
        <ul>
          {items
            .filter((item) => item.show)
            .map((item) => (
              <li key={item.to}>
                {/* the link of the section shown (of /webhooks/x too) gets aria-current="page" */}
                <Link to={item.to} activeOptions={{ exact: item.to === '/', includeSearch: false }} activeProps={{}}>
                  {item.label}
                </Link>
              </li>
            ))}
        </ul>
      </nav>
      <main id="main" ref={main} tabIndex={-1}>
        <NavigationStatus />
        {children}
      </main>
    </>
  );
}

/** The account acted in: a switcher for a member of several, else its name and the member's role. */
function AccountPicker() {
  const { me, membership, switchAccount } = useSession();
  if (me.memberships.length > 1) {
    return (
      <label className="inline account-pick">
        <span className="narrow-hidden">Account</span>
        <select value={membership?.accountId ?? ''} onChange={(e) => switchAccount(e.target.value)}>
          {me.memberships.map((m) => (
            <option key={m.accountId} value={m.accountId}>
              {m.accountName} ({m.role})
            </option>
          ))}
        </select>
      </label>
    );
  }
  if (!membership) return null;
  return (
    <span className="account-name" title={`${membership.accountName} (${membership.role})`}>
      {membership.accountName} <span className="muted">({membership.role})</span>
    </span>
  );
}

/** The frame of the signed-out pages (sign-in, sign-up, invitations). */
export function PlainShell({ children }: { children: ReactNode }) {
  return (
    <>
      <header className="top">
        <span className="brand">Attestation Service</span>
        <span className="spacer" />
        <ThemeSelect />
      </header>
      <main id="main" className="narrow">
        <NavigationStatus />
        {children}
      </main>
    </>
  );
}

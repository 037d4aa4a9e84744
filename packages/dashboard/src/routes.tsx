import { DELIVERY_STATES } from '@attestation-service/server/rules';
import { createRootRoute, createRoute, createRouter, lazyRouteComponent, Outlet } from '@tanstack/react-router';
import { z } from 'zod';
import { PlainShell } from './components/shell.tsx';
import { NotFound } from './components/not-found.tsx';
import { Overview } from './pages/overview.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { SignedIn } from './signed-in.tsx';

/** Where the app lives (the service answers index.html for every path under it); routes are paths below it. */
export const BASE = '/dashboard';

/**
 * A page to return to after signing in: a path under the dashboard with its query (`keys`, `webhooks/x?state=dead`).
 * Never absolute or protocol-relative, so it cannot leave the dashboard; anything else falls back to the overview.
 */
const returnPath = z
  .string()
  .max(2048)
  .regex(/^(?![/\\])[^\\]*$/)
  .default('')
  .catch('');

/** A query parameter that is there or not; a malformed one counts as absent. */
const optionalText = z.string().max(2048).optional().catch(undefined);

const rootRoute = createRootRoute({ component: Outlet, notFoundComponent: NotFound });

/** Pages a signed-out person may see, in the plain frame: a 401 there is expected, not a reason to redirect. */
const publicLayout = createRoute({
  getParentRoute: () => rootRoute,
  id: '_public',
  component: () => (
    <PlainShell>
      <Outlet />
    </PlainShell>
  ),
});

/** Pages that need a session, inside the signed-in shell. */
const appLayout = createRoute({ getParentRoute: () => rootRoute, id: '_app', component: SignedIn });

// sign-in and the overview are in the first load; every other page is fetched when first opened
const publicRoutes = [
  createRoute({
    getParentRoute: () => publicLayout,
    path: 'sign-in',
    validateSearch: z.object({ next: returnPath }),
    component: SignIn,
  }),
  createRoute({
    getParentRoute: () => publicLayout,
    path: 'sign-up',
    component: lazyRouteComponent(() => import('./pages/sign-up.tsx')),
  }),
  createRoute({
    getParentRoute: () => publicLayout,
    path: 'invite/$token',
    component: lazyRouteComponent(() => import('./pages/invite.tsx')),
  }),
  createRoute({
    getParentRoute: () => publicLayout,
    path: 'reset-password',
    validateSearch: z.object({ token: optionalText }),
    component: lazyRouteComponent(() => import('./pages/reset-password.tsx')),
  }),
  createRoute({
    getParentRoute: () => publicLayout,
    path: 'verify-email',
    // better-auth adds `?error=` when the link did not work
    validateSearch: z.object({ error: optionalText }),
    component: lazyRouteComponent(() => import('./pages/verify-email.tsx')),
  }),
] as const;

const appRoutes = [
  createRoute({ getParentRoute: () => appLayout, path: '/', component: Overview }),
  createRoute({
    getParentRoute: () => appLayout,
    path: 'keys',
    component: lazyRouteComponent(() => import('./pages/keys.tsx')),
  }),
  createRoute({
    getParentRoute: () => appLayout,
    path: 'webhooks',
    component: lazyRouteComponent(() => import('./pages/webhooks.tsx')),
  }),
  createRoute({
    getParentRoute: () => appLayout,
    path: 'webhooks/$id',
    validateSearch: z.object({ state: z.enum(DELIVERY_STATES).optional().catch(undefined) }),
    component: lazyRouteComponent(() => import('./pages/deliveries.tsx')),
  }),
  createRoute({
    getParentRoute: () => appLayout,
    path: 'attestations',
    component: lazyRouteComponent(() => import('./pages/attestations.tsx')),
  }),
  createRoute({
    getParentRoute: () => appLayout,
    path: 'attesters',
    component: lazyRouteComponent(() => import('./pages/attesters.tsx')),
  }),
  createRoute({
    getParentRoute: () => appLayout,
    path: 'domains',
    component: lazyRouteComponent(() => import('./pages/domains.tsx')),
  }),
  createRoute({
    getParentRoute: () => appLayout,
    path: 'audit',
    component: lazyRouteComponent(() => import('./pages/audit.tsx')),
  }),
  createRoute({
    getParentRoute: () => appLayout,
    path: 'members',
    component: lazyRouteComponent(() => import('./pages/members.tsx')),
  }),
  createRoute({
    getParentRoute: () => appLayout,
    path: 'account',
    staticData: { accountless: true },
    component: lazyRouteComponent(() => import('./pages/account.tsx')),
  }),
  createRoute({
    getParentRoute: () => appLayout,
    path: 'support',
    staticData: { accountless: true },
    component: lazyRouteComponent(() => import('./pages/support.tsx')),
  }),
] as const;

const routeTree = rootRoute.addChildren([publicLayout.addChildren(publicRoutes), appLayout.addChildren(appRoutes)]);

export const router = createRouter({
  routeTree,
  basepath: BASE,
  defaultPendingComponent: Loading,
  // the pages fetch their own data; a route has nothing to preload
  defaultPreload: false,
});

function Loading() {
  return (
    <p className="muted" role="status">
      Loading…
    </p>
  );
}

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
  interface StaticDataRouteOption {
    /** Open to a signed-in person who belongs to no account yet (their own sign-in, the support team's page). */
    accountless?: boolean;
  }
}

/** Whether the page shown is one a signed-out person may see. */
export function onPublicPage(): boolean {
  return router.state.matches.some((match) => match.routeId === publicLayout.id);
}

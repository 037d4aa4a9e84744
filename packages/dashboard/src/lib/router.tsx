import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/** Where the app lives; every route is a path under it (`''` is the overview). */
export const BASE = '/dashboard/';

const NAVIGATED = 'dashboard:navigate';

/** The current route: the path under BASE without slashes at either end, and the query string's parameters. */
export interface Location {
  path: string;
  search: URLSearchParams;
}

function snapshot(): string {
  return window.location.pathname + window.location.search;
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(NAVIGATED, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(NAVIGATED, onChange);
  };
}

/** The path under BASE of an absolute pathname (`/dashboard/webhooks/x/` → `webhooks/x`). */
export function routePath(pathname: string): string {
  const under = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : '';
  return under.replace(/^\/+|\/+$/g, '');
}

/** The href of a route (`keys`, `invite/abc?x=1`). */
export function href(to: string): string {
  return BASE + to.replace(/^\/+/, '');
}

/** Goes to a route without reloading; `replace` keeps the history entry count (redirects). */
export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = href(to);
  if (url === snapshot()) return;
  if (opts.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new Event(NAVIGATED));
}

/** The current route, re-rendering on every navigation (links, back and forward). */
export function useLocation(): Location {
  const current = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(current, window.location.origin);
  return { path: routePath(url.pathname), search: url.searchParams };
}

/** The parameters of a route pattern (`webhooks/:id`) matched against a path, or null. */
export function matchRoute(pattern: string, path: string): Record<string, string> | null {
  const want = pattern === '' ? [] : pattern.split('/');
  const have = path === '' ? [] : path.split('/');
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const part = want[i] as string;
    const value = have[i] as string;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return null;
  }
  return params;
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string };

/** An in-app link: a real href (open in a new tab works), a plain click navigates without a reload. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  function follow(event: MouseEvent<HTMLAnchorElement>) {
    onClick?.(event);
    const modified = event.metaKey || event.ctrlKey || event.shiftKey || event.altKey;
    if (event.defaultPrevented || event.button !== 0 || modified || rest.target) return;
    event.preventDefault();
    navigate(to);
  }
  return <a {...rest} href={href(to)} onClick={follow} />;
}

/** Routes a signed-out person may see: a 401 there is expected, not a reason to redirect. */
export function isPublicPath(path: string): boolean {
  return path === 'sign-in' || path === 'sign-up' || path.startsWith('invite/');
}

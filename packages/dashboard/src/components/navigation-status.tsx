import { useRouterState } from '@tanstack/react-router';

/**
 * "Loading…" for assistive technology while the router fetches the next page: the router keeps the previous page on
 * screen until the next one renders (a React transition), so without this nothing would say a click was taken.
 */
export function NavigationStatus() {
  const navigating = useRouterState({
    select: (state) => state.status === 'pending' && state.location.pathname !== state.resolvedLocation?.pathname,
  });
  if (!navigating) return null;
  return (
    <p className="visually-hidden" role="status">
      Loading…
    </p>
  );
}

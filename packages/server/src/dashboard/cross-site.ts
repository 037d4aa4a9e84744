import { AppError } from '../errors.ts';

/**
 * A cookie-authenticated change must come from the dashboard's own pages (docs/decisions.md, "Dashboard sign-in"):
 * refused when the browser
 * says the request is cross-site (Sec-Fetch-Site) or names another origin (Origin). Requests without either header
 * come from no browser, so carry no ambient cookie of a victim.
 */
export function assertSameOrigin(
  request: { origin?: string | undefined; fetchSite?: string | undefined },
  origins: readonly string[],
): void {
  const site = request.fetchSite?.toLowerCase();
  const crossSite = site !== undefined && site !== 'same-origin' && site !== 'none';
  const otherOrigin = request.origin !== undefined && !origins.includes(request.origin);
  if (crossSite || otherOrigin)
    throw new AppError('FORBIDDEN', 'Cross-site request refused: dashboard changes are made from the dashboard only.');
}

import type { AnyRouter } from '@trpc/server';
import { allProcedures } from './trpc-internals.ts';

/**
 * What a request is counted under in the metrics, set while it is routed: a REST route's pattern
 * (`/v1/attestations/{uid}`), `/trpc/<procedure>`, a mount's prefix, `/openapi.json`, `/docs`, or `(unmatched)`.
 * Never the raw path: ids in it would make a series per attestation.
 */
export interface RouteLabel {
  route: string;
}

/** The label of a /trpc path: its procedure when the router has it, `(batch)` for several, else `(unknown)`. */
export function routeLabeller(router: AnyRouter): (pathname: string) => string {
  const procedures = new Set(allProcedures(router).map((p) => p.name));
  return (pathname) => {
    const path = pathname.slice('/trpc/'.length);
    if (path.includes(',')) return '/trpc/(batch)';
    return procedures.has(path) ? `/trpc/${path}` : '/trpc/(unknown)';
  };
}

import type { AnyRouter } from '@trpc/server';
import type { Meta, RouteDocs } from './route-meta.ts';
import { openApiProcedures } from './trpc-internals.ts';

export interface Route {
  method: string;
  path: string;
  pattern: RegExp;
  procedure: string;
  successStatus: number;
  protect: boolean;
  /** Health and readiness: public and never authenticated. */
  probe: boolean;
  docs?: RouteDocs;
}

/**
 * Every REST route of the router, read from the procedures' openapi meta. The pattern is ours, not trpc-to-openapi's
 * getPathRegExp: that one matches case-insensitively and without a trailing slash (docs/decisions.md, "REST dispatch").
 */
export function collectRoutes(router: AnyRouter): Route[] {
  const routes: Route[] = [];
  for (const { name: procedure, meta } of openApiProcedures<Meta & { openapi: NonNullable<Meta['openapi']> }>(router)) {
    const { method, path, protect = true } = meta.openapi;
    const pattern = new RegExp(`^${path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}/?$`);
    routes.push({
      method,
      path,
      pattern,
      procedure,
      successStatus: meta.successStatus ?? 200,
      protect,
      probe: meta.probe ?? false,
      docs: meta.docs,
    });
  }
  return routes;
}

type RouteMatch = { route: Route; params: Record<string, string> } | { allowed: string[] } | undefined;

/** The route for this method and path; else the methods the path does allow; else nothing. */
export function matchRoute(routes: Route[], method: string, pathname: string): RouteMatch {
  const sameMethod = method === 'HEAD' ? 'GET' : method;
  // a literal path wins over a template: /v1/attestations/batch is never /v1/attestations/{uid}
  const literal: Route[] = [];
  const templated: Route[] = [];
  for (const r of routes) if (r.pattern.test(pathname)) (r.path.includes('{') ? templated : literal).push(r);
  const onPath = literal.length > 0 ? literal : templated;
  const route = onPath.find((r) => r.method === sameMethod);
  if (route) return { route, params: decodeParams(route.pattern.exec(pathname)?.groups) };
  return onPath.length > 0 ? { allowed: [...new Set(onPath.map((r) => r.method))] } : undefined;
}

function decodeParams(groups: Record<string, string> | undefined): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(groups ?? {})) {
    try {
      params[name] = value.includes('%') ? decodeURIComponent(value) : value;
    } catch {
      params[name] = value; // not valid percent-encoding: validation will name it
    }
  }
  return params;
}

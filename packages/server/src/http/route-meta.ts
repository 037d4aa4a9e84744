import type { OpenApiMeta } from 'trpc-to-openapi';

/** What a route adds to its OpenAPI operation beyond what zod describes (a streamed body, its own statuses). */
export interface RouteDocs {
  /** The whole success response object, in place of the one generated from the output schema. */
  success?: Record<string, unknown>;
  /** More statuses, or more meaning for a status the operation already lists (appended to its description). */
  errors?: Record<number, string>;
  /** Request body examples (OpenAPI `examples`), each one a body the route accepts as is. */
  requestExamples?: Record<string, { summary: string; value: unknown }>;
  /** Schemas the route's docs refer to that no zod contract yields (`#/components/schemas/<name>`). */
  components?: Record<string, Record<string, unknown>>;
  /** Requests the service itself sends, for the document's `webhooks` section (OpenAPI 3.1), by name. */
  webhooks?: Record<string, Record<string, unknown>>;
}

/**
 * A procedure's meta, as the REST layer reads it: `successStatus` is the REST status of a successful call (201 for
 * creations, 204 for deletions); `probe` marks health and readiness (set by `unmeteredProcedure`: they take no key
 * at all); `docs` see RouteDocs.
 */
export type Meta = OpenApiMeta<{ successStatus?: number; probe?: boolean; docs?: RouteDocs }>;

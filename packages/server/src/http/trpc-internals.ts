// Every tRPC internal the service relies on, fenced in this one module (docs/decisions.md, "REST dispatch"):
// test/http/trpc-internals.test.ts exercises each one against a tiny router, so a tRPC upgrade that changes one
// fails there, naming it, instead of somewhere in the REST dispatch or a middleware.
import { getTRPCErrorShape, type AnyProcedure, type AnyRouter, type TRPCError } from '@trpc/server';
import { middlewareMarker } from '@trpc/server/unstable-core-do-not-import';
import {
  forEachOpenApiProcedure,
  getInputOutputParsers,
  type OpenApiProcedure,
  type OpenApiProcedureRecord,
} from 'trpc-to-openapi';

/** The @trpc/server version this module was written against (the test fails when the installed one differs). */
export const TRPC_SERVER_VERSION = '11.25.2';
/** The trpc-to-openapi version this module was written against. */
export const TRPC_TO_OPENAPI_VERSION = '3.3.0';

/** One procedure that declares a REST route (openapi meta), with its name (`attestations.create`) and meta. */
interface OpenApiProcedureEntry<M> {
  name: string;
  procedure: AnyProcedure;
  meta: M;
}

/**
 * The router's procedures that declare a REST route, walked by trpc-to-openapi's own `forEachOpenApiProcedure`
 * (the walk its document generator makes), so routing and the document see the same set.
 */
export function openApiProcedures<M>(router: AnyRouter): OpenApiProcedureEntry<M>[] {
  const entries: OpenApiProcedureEntry<M>[] = [];
  // the router's flat record of procedures by name: a tRPC internal (no public accessor in v11)
  const record = router._def.procedures as OpenApiProcedureRecord;
  forEachOpenApiProcedure(record, ({ path, procedure, meta }) => {
    entries.push({ name: path, procedure: procedure as unknown as AnyProcedure, meta: meta as M });
  });
  return entries;
}

/** Every procedure of the router by name (`dashboard.keys.list`) with its type: for tests derived from the router. */
export function allProcedures(router: AnyRouter): { name: string; type: 'query' | 'mutation' | 'subscription' }[] {
  const record = router._def.procedures as Record<string, AnyProcedure>;
  return Object.entries(record).map(([name, procedure]) => ({ name, type: procedure._def.type }));
}

/**
 * Runs a procedure with its whole middleware chain (auth, limits, idempotency, zod input and output), through the
 * call signature tRPC's own caller uses, minus its proxy and its lookup per call.
 */
export function runProcedure(
  procedure: AnyProcedure,
  path: string,
  ctx: unknown,
  getRawInput: () => Promise<unknown>,
): Promise<unknown> {
  return procedure({ path, ctx, type: procedure._def.type, getRawInput, signal: undefined, batchIndex: 0 });
}

/**
 * A procedure's input schema as trpc-to-openapi reads it: its one input, or a new schema merging several (an empty
 * object for none); only the first can be a registered component.
 */
export function inputSchemaOf(procedure: AnyProcedure): unknown {
  return getInputOutputParsers(procedure as unknown as OpenApiProcedure).inputParser;
}

/**
 * A procedure whose output schema documents it (OpenAPI, the SDK's types) but is not checked again at run time: its
 * output validator middleware (tRPC marks it `_type: 'output'`) taken out of the chain, which tRPC reads at each call.
 * For hot reads whose answer a typed mapper builds field by field (docs/decisions.md, "Performance": what it costs).
 */
export function withDocumentedOutput<P extends AnyProcedure>(procedure: P): P {
  const def = procedure._def as unknown as { middlewares: Array<{ _type?: string }> };
  def.middlewares = def.middlewares.filter((middleware) => middleware._type !== 'output');
  return procedure;
}

/** A middleware's successful result without calling `next` (a replay): tRPC brands results with its marker. */
export function shortCircuit<T>(data: T): { ok: true; data: T; marker: typeof middlewareMarker } {
  return { ok: true, data, marker: middlewareMarker };
}

/** The error shape the router's error formatter gives `error`, for an answer tRPC itself never runs. */
export function formattedErrorShape(router: AnyRouter, error: TRPCError): unknown {
  // the router's root config (its error formatter): a tRPC internal
  return getTRPCErrorShape({
    config: router._def._config,
    error,
    type: 'unknown',
    path: undefined,
    input: undefined,
    ctx: undefined,
  });
}

import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { toErrorResponse } from './http/error-response.ts';
import { assertAcceptableText } from './http/input-rules.ts';
import { shortCircuit } from './http/trpc-internals.ts';
import './http/zod-messages.ts';
import type { IdempotencyClaim } from './idempotency/service.ts';
import type { AuthenticatedKey, KnownKeyFailure } from './keys/service.ts';
import type { Logger } from './log.ts';
import type { Services } from './services.ts';

/** What every procedure sees of the request it serves; the same for REST and /trpc. */
export interface RequestContext {
  services: Services;
  requestId: string;
  /** The service's logger bound to this request's id: every line logged while serving it carries the id. */
  log: Logger;
  ip: string;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  /** The Accept header (the audit export negotiates JSON or CSV with it). */
  accept?: string | undefined;
  /** Headers the HTTP layer adds to the response, success or error (rate-limit fields, replay marker). */
  responseHeaders: Record<string, string>;
}

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
}

/**
 * `successStatus` is the REST status of a successful call (201 for creations, 204 for deletions); `probe` marks
 * health and readiness (set by `unmeteredProcedure`: they take no key at all); `docs` see RouteDocs.
 */
export type Meta = OpenApiMeta<{ successStatus?: number; probe?: boolean; docs?: RouteDocs }>;

const t = initTRPC
  .context<RequestContext>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      const { status, body } = toErrorResponse(error);
      return { code: shape.code, message: body.message, data: { ...body, httpStatus: status } };
    },
  });

export const router = t.router;

/**
 * Text no procedure takes (NUL, lone surrogates; docs/decisions.md, "Input rules"): checked once the caller is
 * authenticated and limited, before the input's schema, idempotency and any query, so it never joins a group.
 */
const inputRules = t.middleware(async ({ getRawInput, next }) => {
  assertAcceptableText(await getRawInput());
  return next();
});

/** Health and readiness: never limited, so probes always get an answer. */
export const unmeteredProcedure = t.procedure.meta({ probe: true });

/**
 * A route anyone may call: limited per client IP, or, when the call carries an API key, per key by its tier (a
 * platform reading many records, or the verification app, is not held to the anonymous 30 a minute). A key that
 * fails is a 401 here too: a caller never silently falls back to the anonymous limit.
 */
export const publicProcedure = t.procedure.use(async ({ ctx, next, path }) => {
  if (ctx.authorization === undefined) {
    Object.assign(ctx.responseHeaders, await ctx.services.rateLimiter.forIp(ctx.ip));
    return next();
  }
  await authenticateCaller(ctx, path);
  return next();
}).use(inputRules);

/**
 * A route that needs a valid, unrevoked API key, limited per key by tier; a failed key counts against the IP.
 * Audited here for every gated route: a failure of a key that exists (once the IP limit let it through), and a
 * 429 QUOTA_EXCEEDED.
 */
const authenticated = t.procedure.use(async ({ ctx, next, path }) => {
  const auth = await authenticateCaller(ctx, path);
  const result = await next({ ctx: { auth } });
  if (!result.ok) await ctx.services.audit.recordQuotaRefusal(auth, result.error, { ip: ctx.ip, requestId: ctx.requestId, procedure: path });
  return result;
});

/** The caller's key, charged one call against its tier's limit; a failure counts against the IP and is audited. */
async function authenticateCaller(ctx: RequestContext, path: string): Promise<AuthenticatedKey> {
  let auth: AuthenticatedKey;
  let knownKeyFailure = undefined as KnownKeyFailure | undefined; // set by the callback (a plain `let` would narrow to undefined)
  try {
    auth = await ctx.services.keys.authenticate(ctx.authorization, (failure) => (knownKeyFailure = failure));
  } catch (error) {
    // a failed authentication counts against the caller's IP bucket, which slows key guessing
    Object.assign(ctx.responseHeaders, await ctx.services.rateLimiter.forIp(ctx.ip));
    if (knownKeyFailure) ctx.services.audit.recordAuthFailure(knownKeyFailure, { ip: ctx.ip, requestId: ctx.requestId, procedure: path });
    throw error;
  }
  Object.assign(ctx.responseHeaders, await ctx.services.rateLimiter.forKey(auth.prefix, auth.tier));
  return auth;
}

/** Gated routes; mutations honour Idempotency-Key (a replay short-circuits with the stored response). */
export const authedProcedure = authenticated.use(inputRules).use(async ({ ctx, next, type, path, meta, getRawInput }) => {
  if (type !== 'mutation' || ctx.idempotencyKey === undefined) return next();
  const begun = await ctx.services.idempotency.begin(ctx.auth.keyId, ctx.idempotencyKey, path, await getRawInput(), meta?.successStatus ?? 200);
  if (begun.kind === 'replay') {
    ctx.responseHeaders['Idempotent-Replayed'] = 'true';
    return shortCircuit(begun.body) as never;
  }
  const result = await next({ ctx: { idempotency: begun.claim as IdempotencyClaim | undefined } });
  if (begun.claim.completed) return result;
  if (!result.ok) await begun.release();
  else await begun.complete(result.data);
  return result;
});

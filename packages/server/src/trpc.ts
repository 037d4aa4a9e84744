import { initTRPC } from '@trpc/server';
import type { RequestContext as HttpRequestContext, RateWindow } from './http/context.ts';
import { toErrorResponse } from './http/error-response.ts';
import { assertAcceptableInput } from './http/input-rules.ts';
import type { Meta } from './http/route-meta.ts';
import { shortCircuit } from './http/trpc-internals.ts';
import './http/zod-messages.ts';
import type { IdempotencyClaim } from './idempotency/service.ts';
import type { AuthenticatedKey, KnownKeyFailure } from './keys/service.ts';
import type { Services } from './services.ts';
import type { Member } from './audit/entry.ts';
import type { SignedIn } from './dashboard/sessions.ts';
import type { Role } from './rules.ts';
import { AppError } from './errors.ts';

/** What every procedure sees of the request it serves: the HTTP layer's request context, carrying our services. */
type RequestContext = HttpRequestContext<Services>;

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
 * Input no procedure takes (too deep or wide, NUL, lone surrogates; docs/decisions.md, "Input rules"): checked once the
 * caller is
 * authenticated and limited, before the input's schema, idempotency and any query, so it never joins a group.
 */
const inputRules = t.middleware(async ({ ctx, getRawInput, next }) => {
  if (ctx.inputRefusal) throw ctx.inputRefusal;
  assertAcceptableInput(await getRawInput());
  return next();
});

/** Health and readiness: never limited, so probes always get an answer. */
export const unmeteredProcedure = t.procedure.meta({ probe: true });

/**
 * A route anyone may call: limited per client IP, or, when the call carries an API key, per key by its tier (a
 * platform reading many records, or the verification app, is not held to the anonymous 30 a minute). A key that
 * fails is a 401 here too: a caller never silently falls back to the anonymous limit.
 */
export const publicProcedure = t.procedure
  .use(async ({ ctx, next, path }) => {
    // the caller's key, when one is sent: a read with mine=true lists its account's own
    let auth: AuthenticatedKey | undefined;
    if (ctx.authorization === undefined)
      Object.assign(ctx.responseHeaders, await ctx.services.rateLimiter.forIp(ctx.ip));
    else auth = await authenticateCaller(ctx, path);
    return next({ ctx: { auth } });
  })
  .use(inputRules);

/**
 * A route that needs a valid, unrevoked API key, limited per key by tier; a failed key counts against the IP.
 * Audited here for every gated route: a failure of a key that exists (once the IP limit let it through), and a
 * 429 QUOTA_EXCEEDED.
 */
const authenticated = t.procedure.use(async ({ ctx, next, path }) => {
  const auth = await authenticateCaller(ctx, path);
  const result = await next({ ctx: { auth } });
  if (!result.ok)
    await ctx.services.audit.recordQuotaRefusal(auth, result.error, {
      ip: ctx.ip,
      requestId: ctx.requestId,
      procedure: path,
    });
  return result;
});

/**
 * The caller's key, charged one call against its tier's limit and its account's ceiling; a failure counts against
 * the IP and is audited.
 */
async function authenticateCaller(ctx: RequestContext, path: string): Promise<AuthenticatedKey> {
  let auth: AuthenticatedKey;
  let knownKeyFailure = undefined as KnownKeyFailure | undefined; // set by the callback (a plain `let` would narrow to undefined)
  try {
    auth = await ctx.services.keys.authenticate(ctx.authorization, (failure) => (knownKeyFailure = failure));
  } catch (error) {
    // a failed authentication counts against the caller's IP bucket, which slows key guessing
    Object.assign(ctx.responseHeaders, await ctx.services.rateLimiter.forIp(ctx.ip));
    if (knownKeyFailure)
      ctx.services.audit.recordAuthFailure(knownKeyFailure, { ip: ctx.ip, requestId: ctx.requestId, procedure: path });
    throw error;
  }
  const rate: NonNullable<RequestContext['rate']> = (ctx.rate = {});
  const seen = (policy: string, decision: RateWindow) => {
    if (policy === 'key' || policy === 'account') rate[policy] = decision;
  };
  Object.assign(ctx.responseHeaders, await ctx.services.rateLimiter.forKey(auth.prefix, auth.tier, auth, seen));
  return auth;
}

/** Gated routes; mutations honour Idempotency-Key (a replay short-circuits with the stored response). */
export const authedProcedure = authenticated
  .use(inputRules)
  .use(async ({ ctx, next, type, path, meta, getRawInput }) => {
    if (type !== 'mutation' || ctx.idempotencyKey === undefined) return next();
    const begun = await ctx.services.idempotency.begin(
      ctx.auth.keyId,
      ctx.idempotencyKey,
      path,
      await getRawInput(),
      meta?.successStatus ?? 200,
    );
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

/**
 * The dashboard's procedures (tRPC only: no REST path, not in /openapi.json): a better-auth session cookie, checked
 * against the sessions table on every call; a change sent cross-site is refused before anything else. Never cached.
 */
export const sessionProcedure = t.procedure
  .use(async ({ ctx, next, type }) => {
    ctx.responseHeaders['Cache-Control'] = 'no-store';
    if (type === 'mutation') ctx.services.dashboard.sessions.assertSameOrigin(ctx);
    const signedIn: SignedIn = await ctx.services.dashboard.sessions.resolve(ctx.cookie);
    // a member's calls share one bucket at the pro tier's rate, whatever account they act in
    Object.assign(ctx.responseHeaders, await ctx.services.rateLimiter.forKey(`member:${signedIn.user.id}`, 'pro'));
    return next({ ctx: { signedIn } });
  })
  .use(inputRules);

/** A dashboard call acting in one account (`x-account-id`, else the member's first) with at least `role` there. */
export function memberProcedure(role: Role) {
  return sessionProcedure.use(async ({ ctx, next }) => {
    const member: Member = await ctx.services.dashboard.sessions.member(ctx.signedIn, ctx.accountId, role);
    return next({ ctx: { member } });
  });
}

/**
 * The operator's support team (docs/decisions.md, "Dashboard sign-in"): any account, each action audited with the
 * support member as actor.
 */
export const supportProcedure = sessionProcedure.use(async ({ ctx, next }) => {
  if (!ctx.signedIn.user.support)
    throw new AppError('FORBIDDEN', "This is the operator's support view: your user is not on the support team.");
  return next();
});

import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Services } from './services.ts';
import type { AuthenticatedKey } from './keys/service.ts';
import { toErrorResponse } from './http/error-response.ts';

/** What every procedure sees of the request it serves; the same for REST and /trpc. */
export interface RequestContext {
  services: Services;
  requestId: string;
  ip: string;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
}

export interface AuthedContext extends RequestContext {
  auth: AuthenticatedKey;
}

/** `successStatus` is the REST status of a successful call (201 for creations, 204 for deletions). */
export type Meta = OpenApiMeta<{ successStatus?: number }>;

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
export const createCallerFactory = t.createCallerFactory;

/** A route anyone may call. */
export const publicProcedure = t.procedure;

/** A route that needs a valid, unrevoked API key (`Authorization: Bearer <key>`). */
export const authedProcedure = t.procedure.use(async ({ ctx, next }) => {
  const auth = await ctx.services.keys.authenticate(ctx.authorization);
  return next({ ctx: { ...ctx, auth } });
});


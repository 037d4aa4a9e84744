import { memberActor, requestOrigin, type Member } from '../audit/entry.ts';
import { z } from 'zod';
import { memberProcedure, router } from '../trpc.ts';
import {
  createWebhookInput,
  DELIVERY_STATES,
  EVENT_KINDS,
  rotateSecretInput,
  TEST_EVENT,
  type Delivery,
} from '../webhooks/contracts.ts';
import type { WebhookCaller } from '../webhooks/service.ts';

const iso = z.string();
const eventKind = z.enum(EVENT_KINDS);
const rotation = z.object({ previousSecretExpiresAt: iso }).nullable();
const subscription = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(eventKind),
  createdAt: iso,
  rotation,
});
const secrets = { secret: z.string(), standardWebhooksSecret: z.string() };

const deliveryItem = z.object({
  id: z.string(),
  event: z.object({ id: z.string(), type: z.enum([...EVENT_KINDS, TEST_EVENT]) }),
  state: z.enum(DELIVERY_STATES),
  attempts: z.number(),
  createdAt: iso,
  completedAt: iso.nullable(),
  nextAttemptAt: iso.nullable(),
  attemptLog: z.array(
    z.object({
      number: z.number(),
      at: iso,
      status: z.number().nullable(),
      error: z.string().nullable(),
      durationMs: z.number(),
      responseBody: z.string().nullable(),
    }),
  ),
});

/** The member as the webhook service and its audit entries see them. */
function caller(member: Member): WebhookCaller {
  return { accountId: member.accountId, member: memberActor(member) };
}

const item = (d: Delivery): z.infer<typeof deliveryItem> => ({
  id: d.id,
  event: { id: d.eventId, type: d.event },
  state: d.state,
  attempts: d.attempts,
  createdAt: d.createdAt,
  completedAt: d.completedAt,
  nextAttemptAt: d.nextAttemptAt,
  attemptLog: d.attemptLog,
});

/**
 * The dashboard's webhooks page, on the REST API's service (the same URL guard, limits, audit entries and events),
 * with the member as actor; another account's subscription is NOT_FOUND.
 */
export const webhooksDashboardRouter = router({
  list: memberProcedure('viewer')
    .output(z.array(subscription))
    .query(async ({ ctx }) => (await ctx.services.webhooks.list(caller(ctx.member))).data),

  /** The secret is in this answer only. */
  create: memberProcedure('developer')
    .input(createWebhookInput)
    .output(subscription.extend(secrets))
    .mutation(({ ctx, input }) => ctx.services.webhooks.create(caller(ctx.member), input, requestOrigin(ctx))),

  delete: memberProcedure('developer')
    .input(z.strictObject({ id: z.string().min(1).max(64) }))
    .output(z.object({ id: z.string() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.services.webhooks.delete(caller(ctx.member), input.id, requestOrigin(ctx));
      return { id: input.id };
    }),

  /** The new secret is in this answer only; the previous one signs for the window asked. */
  rotateSecret: memberProcedure('developer')
    .input(rotateSecretInput)
    .output(z.object({ id: z.string(), ...secrets, rotation }))
    .mutation(({ ctx, input }) => ctx.services.webhooks.rotateSecret(caller(ctx.member), input, requestOrigin(ctx))),

  /** A `webhook.test` delivery through the normal path. */
  sendTest: memberProcedure('developer')
    .input(z.strictObject({ id: z.string().min(1).max(64) }))
    .output(z.object({ eventId: z.string(), deliveryId: z.string() }))
    .mutation(({ ctx, input }) => ctx.services.webhooks.sendTest(caller(ctx.member), input.id, requestOrigin(ctx))),

  /** One subscription's deliveries, newest first, with every attempt; keyset pages. */
  deliveries: memberProcedure('viewer')
    .input(
      z.strictObject({
        subscriptionId: z.string().min(1).max(64),
        state: z.enum(DELIVERY_STATES).optional(),
        cursor: z.string().max(200).optional(),
        limit: z.number().int().min(1).max(100).default(20),
      }),
    )
    .output(z.object({ items: z.array(deliveryItem), nextCursor: z.string().nullable() }))
    .query(async ({ ctx, input }) => {
      const page = await ctx.services.webhooks.deliveries(caller(ctx.member), {
        id: input.subscriptionId,
        state: input.state,
        cursor: input.cursor,
        limit: input.limit,
      });
      return { items: page.data.map(item), nextCursor: page.nextCursor };
    }),
});

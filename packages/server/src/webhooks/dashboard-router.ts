import { memberActor, requestOrigin, type Member } from '../audit/entry.ts';
import { memberProcedure, router } from '../trpc.ts';
import { createWebhookInput, rotateSecretInput } from './contracts.ts';
import {
  createdSubscription,
  deletedSubscription,
  deliveryItemOf,
  deliveryListInput,
  deliveryListPage,
  rotatedSubscription,
  sentTest,
  subscriptionInput,
  subscriptionList,
} from './dashboard-contracts.ts';
import type { WebhookCaller } from './service.ts';

/** The member as the webhook service and its audit entries see them. */
function caller(member: Member): WebhookCaller {
  return { accountId: member.accountId, member: memberActor(member) };
}

/**
 * The dashboard's webhooks page, on the REST API's service (the same URL guard, limits, audit entries and events),
 * with the member as actor; another account's subscription is NOT_FOUND.
 */
export const webhooksDashboardRouter = router({
  list: memberProcedure('viewer')
    .output(subscriptionList)
    .query(async ({ ctx }) => (await ctx.services.webhooks.list(caller(ctx.member))).data),

  /** The secret is in this answer only. */
  create: memberProcedure('developer')
    .input(createWebhookInput)
    .output(createdSubscription)
    .mutation(({ ctx, input }) => ctx.services.webhooks.create(caller(ctx.member), input, requestOrigin(ctx))),

  delete: memberProcedure('developer')
    .input(subscriptionInput)
    .output(deletedSubscription)
    .mutation(async ({ ctx, input }) => {
      await ctx.services.webhooks.delete(caller(ctx.member), input.id, requestOrigin(ctx));
      return { id: input.id };
    }),

  /** The new secret is in this answer only; the previous one signs for the window asked. */
  rotateSecret: memberProcedure('developer')
    .input(rotateSecretInput)
    .output(rotatedSubscription)
    .mutation(({ ctx, input }) => ctx.services.webhooks.rotateSecret(caller(ctx.member), input, requestOrigin(ctx))),

  /** A `webhook.test` delivery through the normal path. */
  sendTest: memberProcedure('developer')
    .input(subscriptionInput)
    .output(sentTest)
    .mutation(({ ctx, input }) => ctx.services.webhooks.sendTest(caller(ctx.member), input.id, requestOrigin(ctx))),

  /** One subscription's deliveries, newest first, with every attempt; keyset pages. */
  deliveries: memberProcedure('viewer')
    .input(deliveryListInput)
    .output(deliveryListPage)
    .query(async ({ ctx, input }) => {
      const page = await ctx.services.webhooks.deliveries(caller(ctx.member), {
        id: input.subscriptionId,
        state: input.state,
        cursor: input.cursor,
        limit: input.limit,
      });
      return { data: page.data.map(deliveryItemOf), nextCursor: page.nextCursor };
    }),
});

import { z } from 'zod';
import { NOT_FOUND_ERRORS } from '../http/openapi.ts';
import { authedProcedure, router } from '../trpc.ts';
import { webhookEventComponents, webhooksSection } from './events.ts';
import { MAX_SUBSCRIPTIONS } from './service.ts';
import {
  createdWebhook,
  createWebhookInput,
  deleteWebhookInput,
  deliveriesInput,
  deliveryPage,
  rotatedSecret,
  rotateSecretInput,
  sentTestEvent,
  TEST_EVENT,
  testEventInput,
  webhookList,
} from './contracts.ts';

const tags = ['webhooks'];

export const webhooksRouter = router({
  create: authedProcedure
    .meta({
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/v1/webhooks',
        tags,
        protect: true,
        summary: 'Subscribe to events',
        description: `The response holds the signing secret; it is never shown again. An account may have at most ${MAX_SUBSCRIPTIONS} subscriptions.`,
      },
      docs: {
        errors: {
          400: `the url is not https or reaches a private address; or the account already has ${MAX_SUBSCRIPTIONS} subscriptions (delete one first)`,
          409: 'ALREADY_EXISTS: this account already subscribes this URL (details.id)',
        },
        requestExamples: {
          subscribe: {
            summary: 'Two event kinds to an https receiver',
            value: {
              url: 'https://hooks.example.com/attestations',
              events: ['attestation.created', 'attestation.revoked'],
            },
          },
        },
      },
    })
    .input(createWebhookInput)
    .output(createdWebhook)
    .mutation(({ ctx, input }) => ctx.services.webhooks.create(ctx.auth, input, ctx)),

  list: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/v1/webhooks',
        tags,
        protect: true,
        summary: 'List your subscriptions (never their secrets)',
      },
    })
    .input(z.strictObject({}))
    .output(webhookList)
    .query(({ ctx }) => ctx.services.webhooks.list(ctx.auth)),

  delete: authedProcedure
    .meta({
      successStatus: 204,
      openapi: {
        method: 'DELETE',
        path: '/v1/webhooks/{id}',
        tags,
        protect: true,
        summary: 'Delete a subscription',
        description: "Stops deliveries and drops pending ones. Another account's subscription is 404.",
      },
      docs: { errors: NOT_FOUND_ERRORS },
    })
    .input(deleteWebhookInput)
    .output(z.void())
    .mutation(({ ctx, input }) => ctx.services.webhooks.delete(ctx.auth, input.id, ctx)),

  rotateSecret: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/v1/webhooks/{id}/rotate-secret',
        tags,
        protect: true,
        summary: 'Rotate the signing secret',
        description:
          'A new secret, shown only in this response. For `previousSecretTtlHours` (default 24) the previous secret keeps signing: webhook-signature carries both signatures and X-Service-Signature stays on the previous secret; then only the new one signs. A rotation inside a window retires the older secret at once.',
      },
      docs: {
        errors: NOT_FOUND_ERRORS,
        requestExamples: {
          window: { summary: 'Keep the previous secret for a day', value: { previousSecretTtlHours: 24 } },
          leaked: { summary: 'Retire the previous secret at once', value: { previousSecretTtlHours: 0 } },
        },
      },
    })
    .input(rotateSecretInput)
    .output(rotatedSecret)
    .mutation(({ ctx, input }) => ctx.services.webhooks.rotateSecret(ctx.auth, input, ctx)),

  sendTest: authedProcedure
    .meta({
      successStatus: 202,
      openapi: {
        method: 'POST',
        path: '/v1/webhooks/{id}/test',
        tags,
        protect: true,
        summary: 'Send a test event',
        description: `Queues a \`${TEST_EVENT}\` event to this subscription, delivered, signed and retried like any event and listed among its deliveries. It counts against no quota.`,
      },
      // every event's body and headers: the OpenAPI document's `webhooks` section
      docs: { errors: NOT_FOUND_ERRORS, components: webhookEventComponents(), webhooks: webhooksSection() },
    })
    .input(testEventInput)
    .output(sentTestEvent)
    .mutation(({ ctx, input }) => ctx.services.webhooks.sendTest(ctx.auth, input.id, ctx)),

  deliveries: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/v1/webhooks/{id}/deliveries',
        tags,
        protect: true,
        summary: 'Inspect deliveries',
        description: 'Newest first, with every attempt (status, duration, the start of the answer).',
      },
      docs: { errors: NOT_FOUND_ERRORS },
    })
    .input(deliveriesInput)
    .output(deliveryPage)
    .query(({ ctx, input }) => ctx.services.webhooks.deliveries(ctx.auth, input)),
});

import { z } from 'zod';
import { notImplemented } from '../errors.ts';
import { authedProcedure, router } from '../trpc.ts';
import { createdWebhook, createWebhookInput, deleteWebhookInput, webhookList } from './contracts.ts';

const tags = ['webhooks'];

export const webhooksRouter = router({
  create: authedProcedure
    .meta({ successStatus: 201, openapi: { method: 'POST', path: '/v1/webhooks', tags, protect: true, summary: 'Subscribe to events' } })
    .input(createWebhookInput)
    .output(createdWebhook)
    .mutation(() => {
      throw notImplemented('Webhooks');
    }),

  list: authedProcedure
    .meta({ openapi: { method: 'GET', path: '/v1/webhooks', tags, protect: true, summary: 'List your subscriptions (never their secrets)' } })
    .input(z.strictObject({}))
    .output(webhookList)
    .query(() => {
      throw notImplemented('Webhooks');
    }),

  delete: authedProcedure
    .meta({ successStatus: 204, openapi: { method: 'DELETE', path: '/v1/webhooks/{id}', tags, protect: true, summary: 'Delete a subscription', description: 'Stops deliveries and drops pending ones.' } })
    .input(deleteWebhookInput)
    .output(z.void())
    .mutation(() => {
      throw notImplemented('Webhooks');
    }),
});

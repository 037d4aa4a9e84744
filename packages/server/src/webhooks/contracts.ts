import { z } from 'zod';

export const EVENT_KINDS = ['attestation.created', 'attestation.revoked', 'batch.completed'] as const;

const eventKind = z.enum(EVENT_KINDS);
const subscriptionId = z.string().min(1).max(64).meta({ description: 'Subscription id' });

export const createWebhookInput = z.strictObject({
  url: z.url({ protocol: /^https?$/ }).max(2048).meta({ description: 'Receiver address; https, and not a private or loopback address.' }),
  events: z.array(eventKind).min(1, 'must name at least one event kind').max(EVENT_KINDS.length),
});

const subscription = z.object({ id: subscriptionId, url: z.string(), events: z.array(eventKind), createdAt: z.string() });

export const createdWebhook = subscription
  .extend({ secret: z.string().meta({ description: 'HMAC key for X-Service-Signature: shown only in this response.' }) })
  .meta({ id: 'CreatedWebhook' });

export const webhookList = z.object({ data: z.array(subscription.meta({ id: 'Webhook' })) });

export const deleteWebhookInput = z.strictObject({ id: subscriptionId });

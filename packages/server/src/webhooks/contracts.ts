import { z } from 'zod';

export const EVENT_KINDS = ['attestation.created', 'attestation.revoked', 'batch.completed'] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

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

export const DELIVERY_STATES = ['pending', 'completed', 'dead', 'dropped'] as const;

export const deliveriesInput = z.strictObject({
  id: subscriptionId,
  state: z.enum(DELIVERY_STATES).optional().meta({ description: 'Only deliveries in this state' }),
  limit: z.coerce.number().int().min(1).max(100).default(20).meta({ description: '1–100, default 20' }),
  cursor: z.string().max(200).optional().meta({ description: 'nextCursor of the previous page' }),
});

const attempt = z
  .object({
    number: z.number().int().meta({ description: '1–5 within a round; a replay starts a new round' }),
    at: z.string(),
    status: z.number().int().nullable().meta({ description: "The receiver's HTTP status; null when no answer came" }),
    error: z.string().nullable(),
    durationMs: z.number().int(),
    responseBody: z.string().nullable().meta({ description: 'The first 1 KiB of the answer' }),
  })
  .meta({ id: 'WebhookAttempt' });

export const delivery = z
  .object({
    id: z.string().meta({ description: 'The X-Service-Delivery header: the same on every attempt and replay' }),
    eventId: z.string(),
    event: eventKind,
    state: z.enum(DELIVERY_STATES),
    attempts: z.number().int().meta({ description: 'Attempts made in the current round' }),
    replays: z.number().int(),
    nextAttemptAt: z.string().nullable(),
    lastStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.string(),
    completedAt: z.string().nullable(),
    attemptLog: z.array(attempt),
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveryPage = z.object({ data: z.array(delivery), nextCursor: z.string().nullable() });

export type Delivery = z.infer<typeof delivery>;

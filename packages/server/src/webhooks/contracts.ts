import { EVENT_KINDS, TEST_EVENT, type WebhookEventType } from '@attestation-service/protocol';
import { z } from 'zod';
import { DELIVERY_STATES, eventKindSchema, webhookEventsSchema, webhookUrlSchema } from '../rules.ts';
import { timestamp } from '../http/openapi-fields.ts';

export { DELIVERY_STATES, type DeliveryState } from '../rules.ts';
// the event names are the protocol's: TEST_EVENT is sent only on request (POST /v1/webhooks/{id}/test)
export { EVENT_KINDS, TEST_EVENT, type EventKind } from '@attestation-service/protocol';

/** Every `type` a delivery can carry: the subscribable kinds and the test event. */
export type EventType = WebhookEventType;

const eventKind = eventKindSchema;
const subscriptionId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: 'Subscription id', example: '6f1c2b9e-8a4d-4e2f-b7c3-1d5e9a0f2c48' });
const receiverUrl = 'https://hooks.example.com/attestations';
/** Counts and durations: never negative. */
const count = (example: number) => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).meta({ example });
/** A receiver's HTTP status, when it answered. */
const httpStatus = z.number().int().min(100).max(999).nullable().meta({ example: 200 });

export const createWebhookInput = z.strictObject({
  url: webhookUrlSchema.meta({
    description: 'Receiver address; https, and not a private or loopback address.',
    example: receiverUrl,
  }),
  events: webhookEventsSchema.meta({ example: ['attestation.created', 'attestation.revoked'] }),
});

/** A rotation's window: until then the previous secret signs beside the current one. */
const rotationState = z
  .object({
    previousSecretExpiresAt: timestamp('When the previous secret stops signing (ISO 8601, UTC)'),
  })
  .meta({ id: 'WebhookRotation' });

const subscription = z.object({
  id: subscriptionId,
  url: z.string().meta({ example: receiverUrl }),
  events: z.array(eventKind),
  createdAt: timestamp(),
  rotation: rotationState.nullable().meta({ description: 'The rotation window in progress; null outside one' }),
});

const HEX_SECRET = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

/** The secret in both forms, shown only in the answer that made it. */
const secretFields = {
  secret: z.string().meta({
    description:
      'The 32 secret bytes, hex: the HMAC key of webhook-signature (those bytes) and of X-Service-Signature (this text). Shown only in this response.',
    example: HEX_SECRET,
  }),
  standardWebhooksSecret: z.string().meta({
    description: 'The same 32 bytes as `whsec_` + base64, the form Standard Webhooks libraries take',
    example: `whsec_${Buffer.from(HEX_SECRET, 'hex').toString('base64')}`,
  }),
};

export const createdWebhook = subscription.extend(secretFields).meta({ id: 'CreatedWebhook' });

/** The longest a previous secret keeps signing: a week covers a receiver deployed weekly. */
export const MAX_ROTATION_HOURS = 168;

export const rotateSecretInput = z.strictObject({
  id: subscriptionId,
  previousSecretTtlHours: z
    .number()
    .int()
    .min(0)
    .max(MAX_ROTATION_HOURS)
    .default(24)
    .meta({
      description: `Hours the previous secret keeps signing beside the new one (0–${MAX_ROTATION_HOURS}, default 24; 0 retires it at once, for a leaked secret)`,
      example: 24,
    }),
});

export const rotatedSecret = z
  .object({ id: subscriptionId, ...secretFields, rotation: rotationState.nullable() })
  .meta({ id: 'RotatedWebhookSecret' });

export const testEventInput = z.strictObject({ id: subscriptionId });

export const sentTestEvent = z
  .object({
    eventId: z.string().meta({ example: 'c2e4a6b8-0d1f-4a3c-9e5b-7d9f1b3d5e7a' }),
    deliveryId: z.string().meta({
      description: 'The delivery (webhook-id and X-Service-Delivery); follow it in the deliveries listing',
      example: '3a7d9c1e-2b4f-4c6a-8e0d-5f1b3c7a9e2d',
    }),
  })
  .meta({ id: 'SentTestEvent' });

export const webhookList = z.object({ data: z.array(subscription.meta({ id: 'Webhook' })) });

export const deleteWebhookInput = z.strictObject({ id: subscriptionId });

const cursorExample = 'MjAyNS0wMS0wMVQxMjowMDowMC4wMDBafDZmMWMyYjllLThhNGQtNGUyZi1iN2MzLTFkNWU5YTBmMmM0OA';

export const deliveriesInput = z.strictObject({
  id: subscriptionId,
  // meta before optional(): trpc-to-openapi drops the meta of an optional query parameter
  state: z.enum(DELIVERY_STATES).meta({ description: 'Only deliveries in this state' }).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20).meta({ description: '1–100, default 20', example: 20 }),
  cursor: z.string().max(200).meta({ description: 'nextCursor of the previous page' }).optional(),
});

const attempt = z
  .object({
    number: z
      .number()
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .meta({ description: '1–5 within a round; a replay starts a new round', example: 1 }),
    at: timestamp(),
    status: httpStatus.meta({ description: "The receiver's HTTP status; null when no answer came" }),
    error: z.string().nullable().meta({ example: 'timeout after 10 s' }),
    durationMs: count(84),
    responseBody: z.string().nullable().meta({ description: 'The first 1 KiB of the answer', example: 'ok' }),
  })
  .meta({ id: 'WebhookAttempt' });

export const delivery = z
  .object({
    id: z.string().meta({
      description: 'The X-Service-Delivery and webhook-id headers: the same on every attempt and replay',
      example: '3a7d9c1e-2b4f-4c6a-8e0d-5f1b3c7a9e2d',
    }),
    eventId: z.string().meta({ example: 'c2e4a6b8-0d1f-4a3c-9e5b-7d9f1b3d5e7a' }),
    event: z.enum([...EVENT_KINDS, TEST_EVENT]),
    state: z.enum(DELIVERY_STATES),
    attempts: count(1).meta({ description: 'Attempts made in the current round' }),
    replays: count(0),
    nextAttemptAt: timestamp().nullable(),
    lastStatus: httpStatus,
    lastError: z.string().nullable().meta({ example: null }),
    createdAt: timestamp(),
    completedAt: timestamp().nullable(),
    attemptLog: z.array(attempt),
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveryPage = z.object({
  data: z.array(delivery),
  nextCursor: z.string().nullable().meta({ example: cursorExample }),
});

export type Delivery = z.infer<typeof delivery>;

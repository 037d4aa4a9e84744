import { z } from 'zod';
import { DELIVERY_STATES, EVENT_KINDS, TEST_EVENT, type Delivery } from './contracts.ts';

// The dashboard's webhooks page: the REST API's inputs (createWebhookInput, rotateSecretInput in contracts.ts), and
// these shapes of its own (no OpenAPI metadata: the dashboard's procedures are not in /openapi.json).

const iso = z.string();
const eventKind = z.enum(EVENT_KINDS);
const rotation = z.object({ previousSecretExpiresAt: iso }).nullable();
const secrets = { secret: z.string(), standardWebhooksSecret: z.string() };
const subscriptionId = z.string().min(1).max(64);

const subscription = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(eventKind),
  createdAt: iso,
  rotation,
});

export const subscriptionList = z.array(subscription);

/** The secret is in this answer only. */
export const createdSubscription = subscription.extend(secrets);

export const subscriptionInput = z.strictObject({ id: subscriptionId });

export const deletedSubscription = z.object({ id: z.string() });

/** The new secret is in this answer only. */
export const rotatedSubscription = z.object({ id: z.string(), ...secrets, rotation });

export const sentTest = z.object({ eventId: z.string(), deliveryId: z.string() });

export const deliveryListInput = z.strictObject({
  subscriptionId,
  state: z.enum(DELIVERY_STATES).optional(),
  cursor: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(100).default(20),
});

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

/** A page of deliveries, as every page of the API: `data`, and `nextCursor` while more follow. */
export const deliveryListPage = z.object({ data: z.array(deliveryItem), nextCursor: z.string().nullable() });

/** A delivery as the page shows it: its event's id and type together. */
export const deliveryItemOf = (d: Delivery): z.infer<typeof deliveryItem> => ({
  id: d.id,
  event: { id: d.eventId, type: d.event },
  state: d.state,
  attempts: d.attempts,
  createdAt: d.createdAt,
  completedAt: d.completedAt,
  nextAttemptAt: d.nextAttemptAt,
  attemptLog: d.attemptLog,
});

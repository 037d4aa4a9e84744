/** The webhook subscriptions' public types (types.ts re-exports them). */
import type { EventKind, TEST_EVENT } from '@attestation-service/protocol';

/** The event kinds a subscription may subscribe to. */
export type { EventKind } from '@attestation-service/protocol';

export interface CreateWebhookInput {
  url: string;
  events: EventKind[];
}

/** A rotation's window: until then the previous secret signs beside the current one. */
export interface WebhookRotation {
  /** ISO 8601 */
  previousSecretExpiresAt: string;
}

export interface Webhook {
  id: string;
  url: string;
  events: EventKind[];
  createdAt: string;
  /** The rotation window in progress; null outside one. */
  rotation: WebhookRotation | null;
}

/** A subscription's secret in both forms: shown only in the answer that made it. */
export interface WebhookSecrets {
  /** The 32 secret bytes, hex: the key of X-Service-Signature (as text) and of webhook-signature (as bytes). */
  secret: string;
  /** The same bytes as `whsec_` + base64, the form Standard Webhooks libraries take. */
  standardWebhooksSecret: string;
}

export interface CreatedWebhook extends Webhook, WebhookSecrets {}

export interface RotateSecretInput {
  /** Hours the previous secret keeps signing (0–168, default 24; 0 retires it at once). */
  previousSecretTtlHours?: number;
}

export interface RotatedWebhookSecret extends WebhookSecrets {
  id: string;
  rotation: WebhookRotation | null;
}

/** A queued `webhook.test` event: its delivery is listed among the subscription's deliveries. */
export interface SentTestEvent {
  eventId: string;
  deliveryId: string;
}

export type DeliveryState = 'pending' | 'completed' | 'dead' | 'dropped';

/** One POST of a delivery. */
export interface WebhookAttempt {
  /** 1–5 within a round; a replay starts a new round. */
  number: number;
  at: string;
  /** The receiver's HTTP status; null when no answer came (timeout, connection error, refused URL). */
  status: number | null;
  error: string | null;
  durationMs: number;
  /** The first 1 KiB of the receiver's answer. */
  responseBody: string | null;
}

/** An event for one subscription; `id` is the X-Service-Delivery header, the same on every attempt. */
export interface WebhookDelivery {
  id: string;
  eventId: string;
  event: EventKind | typeof TEST_EVENT;
  state: DeliveryState;
  attempts: number;
  replays: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  completedAt: string | null;
  attemptLog: WebhookAttempt[];
}

export interface DeliveriesInput {
  state?: DeliveryState;
  /** 1–100, default 20. */
  limit?: number;
  cursor?: string;
}

export interface DeliveryPage {
  data: WebhookDelivery[];
  nextCursor: string | null;
}

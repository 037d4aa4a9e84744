/** The webhook event kinds (packages/server/src/webhooks/contracts.ts, EVENT_KINDS). */
export const EVENT_KINDS = [
  'attestation.created',
  'attestation.revoked',
  'batch.completed',
  'attestation.anchored',
  'attestation.replaced',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

export const DELIVERY_STATES = ['pending', 'completed', 'dead', 'dropped'] as const;

export type DeliveryState = (typeof DELIVERY_STATES)[number];

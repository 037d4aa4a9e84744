/** The event kinds a webhook subscription may subscribe to (and the API's events, one per kind). */
export const EVENT_KINDS = [
  'attestation.created',
  'attestation.revoked',
  'batch.completed',
  'attestation.anchored',
  'attestation.replaced',
  'attestation.promoted',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** The event sent on request to one subscription (`webhooks.sendTest`), whatever kinds it subscribes to. */
export const TEST_EVENT = 'webhook.test';

/** Every `type` a webhook delivery can carry. */
export type WebhookEventType = EventKind | typeof TEST_EVENT;

/** Every action the service records in an account's audit log (the `action` of an entry). */
export const AUDIT_ACTIONS = [
  'account.created',
  'account.plan_changed',
  'api_key.created',
  'api_key.revoked',
  'attestation.created',
  'attestation.revoked',
  'attestation.anchored',
  'attestation.replaced',
  'attestation.promoted',
  'attester.registered',
  'attester.removed',
  'auth.failed',
  'batch.created',
  'domain.added',
  'domain.verified',
  'domain.removed',
  'member.invited',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'member.invitation_revoked',
  'quota.refused',
  'webhook.subscribed',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.test_sent',
  'webhook_delivery.dead',
  'webhook_delivery.replayed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

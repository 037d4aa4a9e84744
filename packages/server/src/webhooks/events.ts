import { z } from 'zod';
import { timestamp } from '../http/openapi-fields.ts';
import { TEST_EVENT, type EventType } from './contracts.ts';

// The bodies deliveries carry, for the OpenAPI document's `webhooks` section (the SDK's WebhookEvent mirrors them).

// written out here, not imported: attestations/ emits through webhooks/, which may not depend on it in turn
const bytes32 = (example: string) =>
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/)
    .meta({ example });
const uidSchema = bytes32(`0x${'3c'.repeat(32)}`).meta({ description: 'Attestation UID' });
const hexHash = bytes32(`0x${'5c'.repeat(32)}`);

const EVENT_ID = {
  description: 'The event (shared by every subscription that gets it)',
  example: 'c2e4a6b8-0d1f-4a3c-9e5b-7d9f1b3d5e7a',
};
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const ATTESTATION = { $ref: '#/components/schemas/Attestation' };

/** A body's `data`: JSON Schema of a plain zod shape (no component ids inside), or a schema object as is. */
type Data = z.ZodType | Record<string, unknown>;

/** Each event type: its body's component name, what it means, and its `data`. */
const WEBHOOK_EVENTS: Record<EventType, { id: string; description: string; data: Data }> = {
  'attestation.created': {
    id: 'AttestationCreatedEvent',
    description: 'An attestation was made: off-chain at once, on-chain once its transaction has its confirmations.',
    data: ATTESTATION,
  },
  'attestation.revoked': {
    id: 'AttestationRevokedEvent',
    description: 'An attestation was revoked (on-chain: once the revocation is mined).',
    data: ATTESTATION,
  },
  'batch.completed': {
    id: 'BatchCompletedEvent',
    description: 'Every item of a batch is final.',
    data: z.object({
      batchId: z.string().meta({ example: '5b0c8e6a-3f2d-4c1b-9a7e-2d4f6b8a0c1e' }),
      counts: z.object({ total: count, onchain: count, offchain: count }),
      uids: z.array(uidSchema.nullable()).meta({ description: 'Every item, in request order' }),
      txHash: hexHash.nullable().meta({ description: 'The multiAttest transaction; null when all were off-chain' }),
    }),
  },
  'attestation.anchored': {
    id: 'AttestationAnchoredEvent',
    description: 'Off-chain attestations of the account were anchored on chain under one Merkle root.',
    data: z.object({
      root: hexHash,
      txHash: hexHash,
      blockNumber: count,
      timestamp: timestamp('The block time'),
      uids: z.array(uidSchema).meta({ description: "This account's uids in the anchor" }),
    }),
  },
  'attestation.replaced': {
    id: 'AttestationReplacedEvent',
    description:
      'A reorg removed the transaction of an attestation; the relayer sent it again and it stands under a new uid.',
    data: {
      allOf: [
        ATTESTATION,
        {
          type: 'object',
          required: ['previousUid'],
          properties: { previousUid: { ...z.toJSONSchema(uidSchema), description: 'The uid first reported' } },
        },
      ],
    },
  },
  'attestation.promoted': {
    id: 'AttestationPromotedEvent',
    description:
      'An off-chain attestation was put on chain (POST /v1/attestations/{uid}/onchain), once its transaction has its confirmations: `data` is the on-chain record, whose `offchainUid` names the original.',
    data: ATTESTATION,
  },
  [TEST_EVENT]: {
    id: 'WebhookTestEvent',
    description: 'Sent on request (POST /v1/webhooks/{id}/test) to one subscription, whatever kinds it subscribes to.',
    data: z.object({
      subscriptionId: z.string().meta({ example: '6f1c2b9e-8a4d-4e2f-b7c3-1d5e9a0f2c48' }),
      message: z.string().meta({
        example: 'A test event, sent on request: this endpoint receives and can verify deliveries.',
      }),
    }),
  },
};

const jsonSchema = (schema: z.ZodType) => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'output' });
  return rest;
};

/** The body components: `{ id, type, createdAt, data }` of each event type. */
export function webhookEventComponents(): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(WEBHOOK_EVENTS).map(([type, event]) => [
      event.id,
      {
        type: 'object',
        description: event.description,
        required: ['id', 'type', 'createdAt', 'data'],
        properties: {
          id: { type: 'string', ...EVENT_ID },
          type: { type: 'string', const: type, example: type },
          createdAt: jsonSchema(timestamp()),
          data: event.data instanceof z.ZodType ? jsonSchema(event.data) : event.data,
        },
      },
    ]),
  );
}

const header = (description: string, example: string) => ({
  required: true,
  schema: { type: 'string' },
  description,
  example,
});

/** The headers of every delivery: our X-Service-* and the Standard Webhooks ones (docs/webhooks.md). */
const DELIVERY_HEADERS = [
  ['X-Service-Event', 'The event type', 'attestation.created'],
  ['X-Service-Delivery', 'The delivery: the same on every retry and replay', '3a7d9c1e-2b4f-4c6a-8e0d-5f1b3c7a9e2d'],
  [
    'X-Service-Signature',
    '`sha256=` + hex HMAC-SHA256 of the raw body keyed with the hex secret as text; during a rotation, the previous secret',
    'sha256=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
  ],
  ['webhook-id', 'Standard Webhooks: the delivery id (as X-Service-Delivery)', '3a7d9c1e-2b4f-4c6a-8e0d-5f1b3c7a9e2d'],
  ['webhook-timestamp', "Standard Webhooks: the attempt's time, Unix seconds", '1764115200'],
  [
    'webhook-signature',
    'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` keyed with the 32 secret bytes; space-separated, one per secret, during a rotation',
    'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  ],
].map(([name, description, example]) => ({ name: name!, in: 'header', ...header(description!, example!) }));

/** The OpenAPI 3.1 `webhooks` section: one POST per event type, its body's component and the signed headers. */
export function webhooksSection(): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(WEBHOOK_EVENTS).map(([type, event]) => [
      type,
      {
        post: {
          operationId: `webhook:${type}`,
          tags: ['webhooks'],
          summary: type,
          description: event.description,
          security: [],
          parameters: DELIVERY_HEADERS,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${event.id}` } } },
          },
          responses: {
            '2XX': { description: 'Received: no further attempts' },
            default: { description: 'Any other answer, or none in 10 s: retried (5 attempts in all)' },
          },
        },
      },
    ]),
  );
}

// A webhook receiver: verifies each delivery by the Standard Webhooks scheme (its signature, and a timestamp within
// 5 minutes, so a captured delivery replayed later is refused), and handles each webhook-id once.
//   WEBHOOK_SECRET=<64 hex from the subscription> PORT=4000 ./dev example webhook-receiver
// During a secret rotation, set WEBHOOK_SECRET to both secrets, comma-separated: either one verifies.
// Without WEBHOOK_SECRET it subscribes itself (needs ATTESTATION_API_URL, ATTESTATION_API_KEY and, for a local
// http:// receiver, a service started with WEBHOOK_ALLOW_PRIVATE_URLS=true) and prints the secret it was given.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createClient,
  isServiceError,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
} from '@attestation-service/client';

const MAX_BODY = 1024 * 1024;
// In production keep these in your database (a unique key on the delivery id), so restarts and replicas agree.
const handled = new Set<string>();
let secrets = (process.env.WEBHOOK_SECRET ?? '').split(',').filter(Boolean);

const server = createServer((req, res) => {
  if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY) req.destroy();
    else chunks.push(chunk);
  });
  req.on('end', () => {
    // 1. signature and timestamp, over the bytes exactly as received (before any JSON parsing)
    const raw = Buffer.concat(chunks);
    let event: WebhookEvent;
    try {
      event = verifyWebhook(raw, req.headers, secrets);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      console.log(`rejected: ${error.reason}`);
      return void res.writeHead(400).end(error.reason);
    }
    // 2. at most once per delivery id: a retry or a replay of a delivery already handled is acknowledged, not redone
    const deliveryId = String(req.headers['webhook-id']);
    if (handled.has(deliveryId)) {
      console.log(`duplicate ${deliveryId}: already handled`);
      return void res.writeHead(200).end('duplicate');
    }
    handled.add(deliveryId);
    // 3. answer quickly (within 10 s): queue slow work instead of doing it here
    console.log(`accepted ${event.type} ${subjectOf(event)} (delivery ${deliveryId})`);
    // a chain reorg moved an attestation you hold to a new uid: replace the one you stored
    if (event.type === 'attestation.replaced') console.log(`  ${event.data.previousUid} is now ${event.data.uid}`);
    res.writeHead(204).end();
  });
});

// What an event is about, by its type (the union narrows `data`).
function subjectOf(event: WebhookEvent): string {
  switch (event.type) {
    case 'batch.completed':
      return event.data.batchId;
    case 'attestation.anchored':
      return event.data.root;
    case 'webhook.test':
      return event.data.subscriptionId;
    default:
      return event.data.uid;
  }
}

server.listen(Number(process.env.PORT ?? 4000), process.env.HOST ?? '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = `http://${process.env.HOST ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}/webhooks`;
console.log(`listening on ${url}`);

if (secrets.length === 0) {
  const client = createClient({
    baseUrl: process.env.ATTESTATION_API_URL ?? 'http://127.0.0.1:8080',
    apiKey: process.env.ATTESTATION_API_KEY,
  });
  try {
    const subscription = await client.webhooks.create({
      url,
      events: ['attestation.created', 'attestation.revoked', 'batch.completed', 'attestation.replaced'],
    });
    secrets = [subscription.secret];
    console.log(`subscribed ${subscription.id}; its secret (shown once): ${subscription.secret}`);
  } catch (error) {
    console.error(whySubscribingFailed(error));
    process.exit(1);
  }
}

// What went wrong, in words: the usual cause is a service that (rightly, by default) refuses a local http:// URL.
function whySubscribingFailed(error: unknown): string {
  if (!isServiceError(error)) return `could not subscribe: ${error instanceof Error ? error.message : String(error)}`;
  const refusedUrl = error.is('VALIDATION_FAILED') && error.details.errors.some((e) => e.path === 'url');
  if (!refusedUrl) return `could not subscribe: ${error.status} ${error.code}: ${error.message}`;
  return [
    `could not subscribe: the service refused ${url}: ${error.message}`,
    'A receiver on this machine is a private http:// address, which the service accepts only when it runs with',
    'WEBHOOK_ALLOW_PRIVATE_URLS=true (for local development: WEBHOOK_ALLOW_PRIVATE_URLS=true ./dev start).',
    'Otherwise expose this receiver at a public https:// URL, subscribe that URL, and run this program with',
    'WEBHOOK_SECRET set to the secret the subscription gave you.',
  ].join('\n');
}

// A webhook receiver: checks X-Service-Signature over the raw body, and handles each X-Service-Delivery once.
//   WEBHOOK_SECRET=<64 hex from the subscription> PORT=4000 ./dev example webhook-receiver
// Without WEBHOOK_SECRET it subscribes itself (needs ATTESTATION_API_URL, ATTESTATION_API_KEY and, for a local
// http:// receiver, a service started with WEBHOOK_ALLOW_PRIVATE_URLS=true) and prints the secret it was given.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, isServiceError, verifyWebhookSignature } from '@attestation-service/client';

const MAX_BODY = 1024 * 1024;
// In production keep these in your database (a unique key on the delivery id), so restarts and replicas agree.
const handled = new Set<string>();
let secret = process.env.WEBHOOK_SECRET ?? '';

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
    // 1. the signature, over the bytes exactly as received (before any JSON parsing)
    const raw = Buffer.concat(chunks);
    if (!verifyWebhookSignature(raw, req.headers['x-service-signature'] as string | undefined, secret)) {
      console.log('rejected: bad signature');
      return void res.writeHead(400).end('bad signature');
    }
    // 2. at most once per delivery id: a retry or a replay of a delivery already handled is acknowledged, not redone
    const deliveryId = String(req.headers['x-service-delivery']);
    if (handled.has(deliveryId)) {
      console.log(`duplicate ${deliveryId}: already handled`);
      return void res.writeHead(200).end('duplicate');
    }
    const event = JSON.parse(raw.toString('utf8')) as {
      id: string;
      type: string;
      createdAt: string;
      data: { uid?: string; batchId?: string; previousUid?: string };
    };
    handled.add(deliveryId);
    // 3. answer quickly (within 10 s): queue slow work instead of doing it here
    console.log(`accepted ${event.type} ${event.data.uid ?? event.data.batchId} (delivery ${deliveryId})`);
    // a chain reorg moved an attestation you hold to a new uid: replace the one you stored
    if (event.type === 'attestation.replaced') console.log(`  ${event.data.previousUid} is now ${event.data.uid}`);
    res.writeHead(204).end();
  });
});

server.listen(Number(process.env.PORT ?? 4000), process.env.HOST ?? '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = `http://${process.env.HOST ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}/webhooks`;
console.log(`listening on ${url}`);

if (!secret) {
  const client = createClient({
    baseUrl: process.env.ATTESTATION_API_URL ?? 'http://127.0.0.1:8080',
    apiKey: process.env.ATTESTATION_API_KEY,
  });
  try {
    const subscription = await client.webhooks.create({
      url,
      events: ['attestation.created', 'attestation.revoked', 'batch.completed', 'attestation.replaced'],
    });
    secret = subscription.secret;
    console.log(`subscribed ${subscription.id}; its secret (shown once): ${secret}`);
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

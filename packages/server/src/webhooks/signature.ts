import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/** The secret's 32 bytes as a KeyObject: Node 24's HMAC keyed with a Buffer costs several times more (measured). */
const keyOf = (hexSecret: string): KeyObject => createSecretKey(Buffer.from(hexSecret, 'hex'));

/** `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the secret exactly as shown at creation (its text). */
export function signatureOf(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** The secret's 32 bytes in the Standard Webhooks form (`whsec_` + base64), which its libraries take. */
export const standardWebhooksSecret = (hexSecret: string): string =>
  `whsec_${Buffer.from(hexSecret, 'hex').toString('base64')}`;

/**
 * The Standard Webhooks `webhook-signature` value: `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` keyed
 * with each secret's 32 bytes, space-separated (the scheme's form for several keys during a rotation).
 */
function standardSignature(id: string, timestamp: number, body: string, hexSecrets: string[]): string {
  return hexSecrets
    .map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`)
    .join(' ');
}

/** What signs one attempt: the current secret, and the previous one while its rotation window lasts. */
interface SigningSecrets {
  secret: string;
  previousSecret: string | null;
}

/**
 * Every signature header of one attempt at `at` (ms): our X-Service-* and the Standard Webhooks ones, whose
 * id is the delivery's (the same on each retry) and whose timestamp is the attempt's, in seconds. During a rotation
 * X-Service-Signature keeps the previous secret, which a receiver of that header alone holds until the window ends.
 */
export function signedHeaders(
  delivery: { id: string; type: string; body: string },
  keys: SigningSecrets,
  at: number,
): Record<string, string> {
  const timestamp = Math.floor(at / 1000);
  const secrets = keys.previousSecret ? [keys.secret, keys.previousSecret] : [keys.secret];
  return {
    'X-Service-Event': delivery.type,
    'X-Service-Delivery': delivery.id,
    'X-Service-Signature': signatureOf(delivery.body, keys.previousSecret ?? keys.secret),
    'webhook-id': delivery.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignature(delivery.id, timestamp, delivery.body, secrets),
  };
}

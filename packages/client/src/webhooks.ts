import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Checks `X-Service-Signature` (`sha256=<hex HMAC-SHA256 of the raw body>`) in constant time. Pass the body exactly
 * as received (bytes or string), before any JSON parsing, and the subscription's secret as shown at creation.
 */
export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
): boolean {
  if (typeof signatureHeader !== 'string' || !/^sha256=[0-9a-f]{64}$/.test(signatureHeader)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = Buffer.from(signatureHeader.slice('sha256='.length), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The header value for a body (what the service sends); useful to test a receiver. */
export function signWebhookBody(rawBody: string | Uint8Array, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import type { WebhookEventType as WebhookEventKind } from '@attestation-service/protocol';
import type { Attestation } from './types.ts';

/** A secret as the service returns it: the hex `secret`, or its `standardWebhooksSecret` (`whsec_` + base64). */
export type WebhookSecret = string;

/** During a rotation, pass both secrets (either one verifies); a single secret otherwise. */
type Secrets = WebhookSecret | readonly WebhookSecret[];

const list = (secrets: Secrets): readonly string[] => (typeof secrets === 'string' ? [secrets] : secrets);

// pure-JS HMAC (not Web Crypto's, which is async only) keeps these verifiers synchronous in every runtime

/** Base64 to bytes; empty for text that is not base64, so a mangled header matches nothing rather than throwing. */
function base64Bytes(text: string): Uint8Array {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return new Uint8Array(0);
  }
}

/** Hex to bytes up to the first pair that is not hex, as Node's Buffer.from(text, 'hex') reads it. */
function hexBytes(text: string): Uint8Array {
  const pairs = text.match(/^(?:[0-9a-fA-F]{2})*/)![0];
  return Uint8Array.from({ length: pairs.length / 2 }, (_, i) => parseInt(pairs.slice(2 * i, 2 * i + 2), 16));
}

const bytesOf = (body: string | Uint8Array): Uint8Array => (typeof body === 'string' ? utf8ToBytes(body) : body);

/** The hex text of a secret given in either form (X-Service-Signature is keyed with the text, not its bytes). */
function hexOf(secret: string): string {
  return secret.startsWith('whsec_') ? bytesToHex(base64Bytes(secret.slice(6))) : secret;
}

/** The 32 bytes of a secret given in either form (the Standard Webhooks HMAC key). */
function keyOf(secret: string): Uint8Array {
  return secret.startsWith('whsec_') ? base64Bytes(secret.slice(6)) : hexBytes(secret);
}

/** Equal bytes, in time that depends on the length only. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

const toBase64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes));

/**
 * Checks `X-Service-Signature` (`sha256=<hex HMAC-SHA256 of the raw body>`) in constant time. Pass the body exactly
 * as received (bytes or string), before any JSON parsing, and the subscription's secret as shown at creation — or
 * both secrets during a rotation. It proves no freshness: prefer `verifyWebhook`, which also checks the time.
 */
export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: Secrets,
): boolean {
  if (typeof signatureHeader !== 'string' || !/^sha256=[0-9a-f]{64}$/.test(signatureHeader)) return false;
  const given = hexBytes(signatureHeader.slice('sha256='.length));
  return list(secret).some((s) => sameBytes(given, hmac(sha256, utf8ToBytes(hexOf(s)), bytesOf(rawBody))));
}

/** The X-Service-Signature value for a body (what the service sends); useful to test a receiver. */
export function signWebhookBody(rawBody: string | Uint8Array, secret: WebhookSecret): string {
  return `sha256=${bytesToHex(hmac(sha256, utf8ToBytes(hexOf(secret)), bytesOf(rawBody)))}`;
}

/** The Standard Webhooks `webhook-signature` value (`v1,<base64>`) for one secret; useful to test a receiver. */
export function signStandardWebhook(
  id: string,
  timestampSeconds: number,
  rawBody: string | Uint8Array,
  secret: WebhookSecret,
): string {
  const mac = hmac.create(sha256, keyOf(secret)).update(utf8ToBytes(`${id}.${timestampSeconds}.`));
  return `v1,${toBase64(mac.update(bytesOf(rawBody)).digest())}`;
}

/** Why a delivery was refused. */
export type WebhookRefusal = 'missing-headers' | 'bad-timestamp' | 'too-old' | 'too-new' | 'no-matching-signature';

export class WebhookVerificationError extends Error {
  readonly reason: WebhookRefusal;
  constructor(reason: WebhookRefusal) {
    super(`webhook refused: ${reason}`);
    this.reason = reason;
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyWebhookOptions {
  /** How far webhook-timestamp may be from now, either way (default 300 s, as the scheme's libraries). */
  toleranceSeconds?: number;
  /** Now, in ms (default Date.now). */
  now?: () => number;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies a delivery by the Standard Webhooks scheme (`webhook-id`, `webhook-timestamp`, `webhook-signature`) and
 * returns its event: the timestamp within the tolerance (a captured delivery cannot be replayed later), and a `v1`
 * signature of `${id}.${timestamp}.${body}` by one of the secrets (pass both during a rotation). Throws a
 * WebhookVerificationError naming the reason otherwise. `headers`: a fetch Headers or Node's `req.headers`.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: HeaderBag,
  secret: Secrets,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing-headers');
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('bad-timestamp');
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  if (now - Number(timestamp) > tolerance) throw new WebhookVerificationError('too-old');
  if (Number(timestamp) - now > tolerance) throw new WebhookVerificationError('too-new');
  const given = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => base64Bytes(s.slice(3)));
  const expected = list(secret).map((s) =>
    base64Bytes(signStandardWebhook(id, Number(timestamp), rawBody, s).slice(3)),
  );
  if (!given.some((g) => expected.some((e) => sameBytes(g, e))))
    throw new WebhookVerificationError('no-matching-signature');
  return JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody)) as WebhookEvent;
}

interface Envelope<T extends WebhookEventKind, D> {
  /** The event, shared by every subscription that got it. */
  id: string;
  type: T;
  /** ISO 8601 */
  createdAt: string;
  data: D;
}

/** What a delivery's body holds, by `type` (the OpenAPI document's `webhooks` section describes the same). */
export type WebhookEvent =
  | Envelope<'attestation.created', Attestation>
  | Envelope<'attestation.revoked', Attestation>
  | Envelope<'attestation.replaced', Attestation & { previousUid: string }>
  /** An off-chain attestation was put on chain: `data` is the on-chain record; its `offchainUid` names the original. */
  | Envelope<'attestation.promoted', Attestation>
  | Envelope<
      'batch.completed',
      {
        batchId: string;
        counts: { total: number; onchain: number; offchain: number };
        /** Every item, in request order. */
        uids: Array<string | null>;
        /** The multiAttest transaction; null when all were off-chain. */
        txHash: string | null;
      }
    >
  | Envelope<
      'attestation.anchored',
      { root: string; txHash: string; blockNumber: number; timestamp: string; uids: string[] }
    >
  | Envelope<'webhook.test', { subscriptionId: string; message: string }>;

/** Every `type` a delivery can carry. */
export type WebhookEventType = WebhookEvent['type'];

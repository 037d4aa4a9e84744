import { createHash, randomBytes } from 'node:crypto';
import type { Tier } from '../rules.ts';

export { TIERS, type Tier } from '../rules.ts';

interface ParsedKey {
  tier: Tier;
  prefix: string;
  secret: string;
}

const KEY_PATTERN = /^svc_(free|pro|enterprise)_([0-9a-f]{12})_([0-9a-f]{32})$/;

/** Splits `svc_<tier>_<prefix12>_<secret32>`; anything else (other case, spaces, lengths) is not a key. */
export function parseKey(raw: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(raw);
  if (!match) return undefined;
  return { tier: match[1] as Tier, prefix: match[2]!, secret: match[3]! };
}

/** A new random key: 48 bits of prefix to find it, 128 bits of secret to prove it. */
export function generateKey(tier: Tier): ParsedKey & { key: string } {
  const prefix = randomBytes(6).toString('hex');
  const secret = randomBytes(16).toString('hex');
  return { tier, prefix, secret, key: formatKey({ tier, prefix, secret }) };
}

export function formatKey({ tier, prefix, secret }: ParsedKey): string {
  return `svc_${tier}_${prefix}_${secret}`;
}

/** What is stored of a secret: its SHA-256 (the secret has 128 random bits, so a fast hash is enough). */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Looks like a prefix, for the CLI's `keys revoke PREFIX12`. */
export function isPrefix(text: string): boolean {
  return /^[0-9a-f]{12}$/.test(text);
}

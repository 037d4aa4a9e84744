import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { purposeKey, type ServiceSecrets } from '../system/service-secret.ts';

/** Seals and opens invitation tokens, so an owner can copy a pending link again (the hash alone could not give it). */
export interface TokenSealer {
  seal(token: string): string;
  /** The token, or undefined when the sealed text was made under neither secret (or was tampered with). */
  unseal(sealed: string): string | undefined;
}

// v1 was sealed under a secret kept in the database; such a link can no longer be copied (its token still works)
const VERSION = 'v2';
const PURPOSE = 'invitation-token-seal';

/**
 * AES-256-GCM under a key derived from SERVICE_SECRET, which is not in the database: a dump of it yields no usable
 * link. Sealed as `v2.<iv>.<ciphertext>.<tag>` in base64url; opened with the current secret, then the previous one.
 */
export function tokenSealer(secrets: ServiceSecrets): TokenSealer {
  const key = purposeKey(secrets.current, PURPOSE);
  const keys = secrets.previous ? [key, purposeKey(secrets.previous, PURPOSE)] : [key];
  return {
    seal(token) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
      return [VERSION, iv, body, cipher.getAuthTag()]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    unseal(sealed) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== VERSION || !iv || !body || !tag) return undefined;
      for (const k of keys) {
        const token = open(k, iv, body, tag);
        if (token !== undefined) return token;
      }
      return undefined;
    },
  };
}

function open(key: Buffer, iv: string, body: string, tag: string): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
      authTagLength: 16,
    });
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

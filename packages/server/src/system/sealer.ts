import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { purposeKey, type ServiceSecrets } from './service-secret.ts';

/** Seals text at rest under a key derived from SERVICE_SECRET, which is not in the database. */
export interface Sealer {
  seal(text: string): string;
  /** The text, or undefined when it was sealed under neither secret (or tampered with). */
  open(sealed: string): string | undefined;
}

/**
 * AES-256-GCM under SERVICE_SECRET's key for `purpose`, sealed as `<version>.<iv>.<ciphertext>.<tag>` in base64url;
 * opened with the current secret, then the previous one (a rotation keeps what was sealed before it readable).
 */
export function sealer(secrets: ServiceSecrets, purpose: string, version: string): Sealer {
  const key = purposeKey(secrets.current, purpose);
  const keys = secrets.previous ? [key, purposeKey(secrets.previous, purpose)] : [key];
  return {
    seal(text) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return [version, ...[iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url'))].join('.');
    },
    open(sealed) {
      const [given, iv, body, tag] = sealed.split('.');
      if (given !== version || !iv || !body || !tag) return undefined;
      for (const k of keys) {
        const text = openWith(k, iv, body, tag);
        if (text !== undefined) return text;
      }
      return undefined;
    },
  };
}

function openWith(key: Buffer, iv: string, body: string, tag: string): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
